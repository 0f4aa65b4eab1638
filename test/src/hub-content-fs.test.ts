import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub content: per-channel virtual file system', () => {
  let hub: HubHarness;
  let owner: string;
  let ann: string;
  let op: string;
  let stranger: string;

  before(async () => {
    hub = await startHub();
    ({ owner, ann, op, stranger } = await hub.seats(['owner', 'ann', 'op', 'stranger'], ['op']));
    await hub.room('proj', owner, [ann, op]);
  });
  after(() => hub.stop());

  const history = async (channel: string, token: string) => (await hub.call('GET', `/channels/${channel}/messages?limit=1000`, token)).body as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('writes a text file and serves the FsFile of the new head', async () => {
    const res = await hub.call('PUT', '/channels/proj/fs/notes/plan.md', ann, { content: '# The plan\n\nShip it.\n' });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ path: 'notes/plan.md', content: '# The plan\n\nShip it.\n', mime: 'text/markdown', version: 1, updated_by: 'ann', size_bytes: 21, content_b64: null, encoding: null });
    expect(res.body.description).to.equal('The plan');
    expect(res.body.updated_at).to.be.a('number');
  });

  it('lists live entries with metadata only, sorted, filtered by prefix; described says whether the writer gave the description', async () => {
    await hub.call('PUT', '/channels/proj/fs/notes/alpha.txt', ann, { content: 'first line\nsecond', description: 'the alpha note' });
    await hub.call('PUT', '/channels/proj/fs/other.md', ann, { content: 'other' });
    const all = await hub.call('GET', '/channels/proj/fs', ann);
    expect(all.status).to.equal(200);
    const paths = all.body.map((e: { path: string }) => e.path);
    expect(paths).to.deep.equal([...paths].sort());
    expect(paths).to.include.members(['notes/alpha.txt', 'notes/plan.md', 'other.md', 'channel/charter.md']);
    const notes = await hub.call('GET', '/channels/proj/fs?prefix=notes/', ann);
    expect(notes.body.map((e: { path: string }) => e.path)).to.deep.equal(['notes/alpha.txt', 'notes/plan.md']);
    const [alpha, plan] = notes.body;
    expect(alpha).to.deep.equal({ path: 'notes/alpha.txt', version: 1, updated_by: 'ann', updated_at: alpha.updated_at, size: 17, description: 'the alpha note', described: true });
    expect(plan).to.include({ description: 'The plan', described: false });
    expect(plan).to.not.have.property('content');
    expect(plan).to.not.have.property('encoding');
  });

  it('stores binary files base64 (size decoded, empty content, encoding base64 in the list)', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const put = await hub.call('PUT', '/channels/proj/fs/img/logo.png', ann, { content_b64: bytes.toString('base64') });
    expect(put.status).to.equal(200);
    expect(put.body).to.include({ content: '', content_b64: bytes.toString('base64'), encoding: 'base64', mime: 'image/png', size_bytes: 8 });
    const entry = (await hub.call('GET', '/channels/proj/fs?prefix=img/', ann)).body[0];
    expect(entry).to.include({ path: 'img/logo.png', encoding: 'base64', size: 8 });
    const read = await hub.call('GET', '/channels/proj/fs/img/logo.png', owner);
    expect(Buffer.from(read.body.content_b64, 'base64').equals(bytes)).to.equal(true);
  });

  it('posts a kind fs audit message authored by the writer, titled fs:put <path>, with {op, path, version, size_bytes}', async () => {
    await hub.call('PUT', '/channels/proj/fs/audit/a.md', ann, { content: 'abc' });
    const rows = await history('proj', owner);
    const audit = rows.filter((m) => m.kind === 'fs' && m.data?.path === 'audit/a.md');
    expect(audit).to.have.length(1);
    expect(audit[0]).to.include({ sender: 'ann', kind: 'fs', title: 'fs:put audit/a.md', status: 'fyi' });
    expect(audit[0]!.data).to.deep.equal({ op: 'put', path: 'audit/a.md', version: 1, size_bytes: 3 });
  });

  it('keeps versions: ?version=N reads an archived version; a missing version is 404', async () => {
    await hub.call('PUT', '/channels/proj/fs/v/doc.md', ann, { content: 'one' });
    const two = await hub.call('PUT', '/channels/proj/fs/v/doc.md', owner, { content: 'two' });
    expect(two.body.version).to.equal(2);
    expect((await hub.call('GET', '/channels/proj/fs/v/doc.md', ann)).body).to.include({ content: 'two', version: 2, updated_by: 'owner' });
    expect((await hub.call('GET', '/channels/proj/fs/v/doc.md?version=1', ann)).body).to.include({ content: 'one', version: 1, updated_by: 'ann' });
    const missing = await hub.call('GET', '/channels/proj/fs/v/doc.md?version=9', ann);
    expect(missing.status).to.equal(404);
    expect(missing.body.detail).to.equal("version 9 of 'v/doc.md' not found in 'proj'");
    const absent = await hub.call('GET', '/channels/proj/fs/v/nope.md', ann);
    expect(absent.status).to.equal(404);
    expect(absent.body.detail).to.equal("file 'v/nope.md' not found in 'proj'");
  });

  it('refuses a stale expect_version with 409 naming the current version; 0 means must not exist', async () => {
    await hub.call('PUT', '/channels/proj/fs/cas.md', ann, { content: 'a' });
    const stale = await hub.call('PUT', '/channels/proj/fs/cas.md', ann, { content: 'b', expect_version: 0 });
    expect(stale.status).to.equal(409);
    expect(stale.body.detail).to.equal('store version conflict: current version is 1');
    const wrong = await hub.call('PUT', '/channels/proj/fs/cas.md', ann, { content: 'b', expect_version: 3 });
    expect(wrong.status).to.equal(409);
    expect((await hub.call('PUT', '/channels/proj/fs/cas.md', ann, { content: 'b', expect_version: 1 })).body.version).to.equal(2);
    const fresh = await hub.call('PUT', '/channels/proj/fs/cas-new.md', ann, { content: 'x', expect_version: 0 });
    expect(fresh.status).to.equal(200);
    expect(fresh.body.version).to.equal(1);
    expect((await hub.call('GET', '/channels/proj/fs/cas.md', ann)).body.content).to.equal('b');
    // Refused writes posted no audit row: the row and the version commit together or not at all.
    const audit = (await history('proj', owner)).filter((m) => m.kind === 'fs' && m.data?.path === 'cas.md');
    expect(audit.map((m) => m.data.version)).to.deep.equal([1, 2]);
  });

  it('deletes as a tombstone: versions stay monotonic, the delete is audited, expect_version is checked', async () => {
    await hub.call('PUT', '/channels/proj/fs/del.md', ann, { content: 'v1' });
    const conflict = await hub.call('DELETE', '/channels/proj/fs/del.md?expect_version=7', ann);
    expect(conflict.status).to.equal(409);
    expect(conflict.body.detail).to.equal('store version conflict: current version is 1');
    const del = await hub.call('DELETE', '/channels/proj/fs/del.md?expect_version=1', ann);
    expect(del.status).to.equal(200);
    expect(del.body).to.deep.equal({ deleted: true });
    expect((await hub.call('GET', '/channels/proj/fs/del.md', ann)).status).to.equal(404);
    expect((await hub.call('GET', '/channels/proj/fs', ann)).body.map((e: { path: string }) => e.path)).to.not.include('del.md');
    expect((await hub.call('DELETE', '/channels/proj/fs/del.md', ann)).body).to.deep.equal({ deleted: false });
    // Absent now: the CAS sees version 0.
    const stale = await hub.call('PUT', '/channels/proj/fs/del.md', ann, { content: 'again', expect_version: 1 });
    expect(stale.status).to.equal(409);
    expect(stale.body.detail).to.equal('store version conflict: current version is 0');
    const again = await hub.call('PUT', '/channels/proj/fs/del.md', ann, { content: 'again', expect_version: 0 });
    expect(again.body.version).to.equal(3); // v1 put, v2 tombstone, v3 put
    expect((await hub.call('GET', '/channels/proj/fs/del.md?version=1', ann)).body.content).to.equal('v1');
    expect((await hub.call('GET', '/channels/proj/fs/del.md?version=2', ann)).status).to.equal(404);
    const audit = (await history('proj', owner)).filter((m) => m.kind === 'fs' && m.data?.path === 'del.md');
    expect(audit.map((m) => m.title)).to.deep.equal(['fs:put del.md', 'fs:delete del.md', 'fs:put del.md']);
    expect(audit[1]!.data).to.deep.equal({ op: 'delete', path: 'del.md', version: 2, size_bytes: 0 });
    expect(audit.map((m) => m.seq)).to.deep.equal([...audit.map((m) => m.seq)].sort((a, b) => a - b));
    // Audit rows are chained like every other message.
    const ledger = (await hub.call('GET', '/channels/proj/ledger', owner)).body;
    expect(ledger).to.include({ verified: true, broken_at: null });
  });

  it('decodes percent-encoded path segments', async () => {
    const put = await hub.call('PUT', '/channels/proj/fs/notes/plan%20v2%20%E2%82%AC.md', ann, { content: 'euro' });
    expect(put.status).to.equal(200);
    expect(put.body.path).to.equal('notes/plan v2 €.md');
    expect((await hub.call('GET', `/channels/proj/fs/${encodeURIComponent('notes')}/${encodeURIComponent('plan v2 €.md')}`, ann)).body.content).to.equal('euro');
  });

  it('refuses paths that break the rules with 400 (empty, ".", "..", whitespace-padded segments, absolute, over 512)', async () => {
    // URL parsers resolve bare `..` segments before sending, so the dot segments ride inside an encoded slash.
    for (const bad of ['a//b', 'a%2F..%2Fb', '.%2Fb', 'a/%20b', 'a/b%20', '/abs', `${'x'.repeat(513)}`]) {
      const res = await hub.call('PUT', `/channels/proj/fs/${bad}`, ann, { content: 'x' });
      expect(res.status, bad).to.equal(400);
      expect(res.body.detail, bad).to.match(/^fs path /);
    }
    expect((await hub.call('PUT', `/channels/proj/fs/${'y'.repeat(512)}`, ann, { content: 'x' })).status).to.equal(200);
    // 500 emoji are within 512 characters but 2000 bytes: refused with 400, never a storage error.
    const wide = await hub.call('PUT', `/channels/proj/fs/${encodeURIComponent('😀'.repeat(500))}`, ann, { content: 'x' });
    expect(wide.status).to.equal(400);
    expect(wide.body.detail).to.include('is 2000 bytes in UTF-8; paths are at most 1024 bytes');
    expect((await hub.call('PUT', `/channels/proj/fs/${encodeURIComponent('😀'.repeat(256))}`, ann, { content: 'x' })).status).to.equal(200);
  });

  it('needs exactly one of content / content_b64, valid base64', async () => {
    const both = await hub.call('PUT', '/channels/proj/fs/x.md', ann, { content: 'a', content_b64: 'YQ==' });
    expect(both.status).to.equal(400);
    expect(both.body.detail).to.equal('provide exactly one of content or content_b64');
    expect((await hub.call('PUT', '/channels/proj/fs/x.md', ann, { description: 'nothing' })).status).to.equal(400);
    const bad = await hub.call('PUT', '/channels/proj/fs/x.bin', ann, { content_b64: 'not base64!' });
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.match(/^content_b64 is not valid base64/);
  });

  it('caps text at 256 KiB and binary at 4 MiB decoded with 413 (refused, never trimmed)', async () => {
    expect((await hub.call('PUT', '/channels/proj/fs/big.txt', ann, { content: 'x'.repeat(256 * 1024) })).status).to.equal(200);
    const text = await hub.call('PUT', '/channels/proj/fs/big.txt', ann, { content: 'x'.repeat(256 * 1024 + 1) });
    expect(text.status).to.equal(413);
    expect(text.body.detail).to.equal('file content is 262145 bytes; the text cap is 262144 bytes');
    const binary = await hub.call('PUT', '/channels/proj/fs/big.bin', ann, { content_b64: Buffer.alloc(4 * 1024 * 1024 + 1).toString('base64') });
    expect(binary.status).to.equal(413);
    expect(binary.body.detail).to.equal('file content is 4194305 bytes decoded; the binary cap is 4194304 bytes');
    expect((await hub.call('GET', '/channels/proj/fs/big.txt', ann)).body.version).to.equal(1);
  });

  it("keeps the 'channel/' prefix for the owner and operators (403 for other members)", async () => {
    const member = await hub.call('PUT', '/channels/proj/fs/channel/rules.md', ann, { content: 'mine now' });
    expect(member.status).to.equal(403);
    expect(member.body.detail).to.match(/^'channel\/\.\.\.' files are channel-owned: /);
    expect((await hub.call('DELETE', '/channels/proj/fs/channel/charter.md', ann)).status).to.equal(403);
    expect((await hub.call('PUT', '/channels/proj/fs/channel/rules.md', owner, { content: 'owner writes' })).status).to.equal(200);
    expect((await hub.call('PUT', '/channels/proj/fs/channel/rules.md', op, { content: 'operator writes' })).body.version).to.equal(2);
    const binaryCharter = await hub.call('PUT', '/channels/proj/fs/channel/charter.md', owner, { content_b64: 'YQ==' });
    expect(binaryCharter.status).to.equal(400);
    expect(binaryCharter.body.detail).to.match(/^charter must be text/);
  });

  it('applies the membership gate: 404 unknown channel, 403 non-member', async () => {
    const unknown = await hub.call('GET', '/channels/nowhere/fs', ann);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.detail).to.equal("channel 'nowhere' not found");
    const outsider = await hub.call('PUT', '/channels/proj/fs/x.md', stranger, { content: 'x' });
    expect(outsider.status).to.equal(403);
    expect(outsider.body.detail).to.equal("'stranger' is not a member of 'proj'");
    expect((await hub.call('GET', '/channels/proj/fs/notes/plan.md', stranger)).status).to.equal(403);
  });
});
