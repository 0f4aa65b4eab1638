import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { startHub, type HubHarness } from './helpers/hub.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('hub content: content-addressed attachments', () => {
  let hub: HubHarness;
  let ann: string;
  let bob: string;
  let stranger: string;

  before(async () => {
    hub = await startHub({ attachmentMaxBytes: 1024, channelAttachmentQuotaBytes: 3000 });
    ({ ann, bob, stranger } = await hub.seats(['ann', 'bob', 'stranger']));
    await hub.room('proj', ann, [bob]);
    await hub.room('quota', ann);
    await hub.room('elsewhere', ann);
  });
  after(() => hub.stop());

  const upload = (channel: string, token: string, bytes: Buffer, type: string, filename?: string) =>
    hub.call('POST', `/channels/${channel}/attachments${filename === undefined ? '' : `?filename=${encodeURIComponent(filename)}`}`, token, bytes, { 'content-type': type });

  it('stores an upload by sha256 and answers its row', async () => {
    const bytes = Buffer.from('%PDF-1.4 not really');
    const res = await upload('proj', ann, bytes, 'application/pdf', 'résumé "v2".pdf');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ channel: 'proj', id: sha(bytes), filename: 'résumé "v2".pdf', content_type: 'application/pdf', size: bytes.length, created_by: 'ann' });
    expect(res.body.created_at).to.be.a('number');
  });

  it('is idempotent: re-uploading the same bytes returns the first row (first filename)', async () => {
    const bytes = Buffer.from('%PDF-1.4 not really');
    const first = (await upload('proj', ann, bytes, 'application/pdf', 'résumé "v2".pdf')).body;
    const again = await upload('proj', bob, bytes, 'text/plain', 'other-name.txt');
    expect(again.status).to.equal(200);
    expect(again.body).to.deep.equal(first);
  });

  it('refuses an empty body (400) and bodies over the cap (413, Content-Length and streamed)', async () => {
    const empty = await upload('proj', ann, Buffer.alloc(0), 'text/plain', 'empty.txt');
    expect(empty.status).to.equal(400);
    const big = await upload('proj', ann, Buffer.alloc(1025, 1), 'application/octet-stream', 'big.bin');
    expect(big.status).to.equal(413);
    expect(big.body.detail).to.equal('attachment exceeds 1024 bytes (operator-configurable cap)');
    expect((await upload('proj', ann, Buffer.alloc(1024, 2), 'application/octet-stream', 'max.bin')).status).to.equal(200);
    // Without a Content-Length (chunked) the cap is enforced while streaming.
    const { url } = await hub.kernel.listen();
    const chunks = [Buffer.alloc(600, 3), Buffer.alloc(600, 3)];
    const stream = new ReadableStream({ pull(controller) { const c = chunks.shift(); if (c) controller.enqueue(c); else controller.close(); } });
    const res = await fetch(`${url}/hub/channels/proj/attachments?filename=chunked.bin`, {
      method: 'POST', body: stream, headers: { authorization: `Bearer ${ann}`, 'content-type': 'application/octet-stream' }, duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(413);
    expect(((await res.json()) as { detail: string }).detail).to.equal('attachment exceeds 1024 bytes (operator-configurable cap)');
  });

  it('enforces the per-channel quota with 413', async () => {
    for (let i = 0; i < 3; i++) expect((await upload('quota', ann, Buffer.alloc(1000, i + 1), 'application/octet-stream', `${i}.bin`)).status).to.equal(200);
    const full = await upload('quota', ann, Buffer.alloc(10, 9), 'application/octet-stream', 'one-more.bin');
    expect(full.status).to.equal(413);
    expect(full.body.detail).to.match(/^attachment storage of 'quota' is full: 3000 of 3000 bytes used/);
    // The same bytes again take no new space.
    expect((await upload('quota', ann, Buffer.alloc(1000, 1), 'application/octet-stream', 'dup.bin')).status).to.equal(200);
  });

  it('serves bytes as a download with nosniff, immutable caching, its id and declared type', async () => {
    const bytes = Buffer.from('%PDF-1.4 not really');
    const res = await hub.call('GET', `/channels/proj/attachments/${sha(bytes)}`, bob);
    expect(res.status).to.equal(200);
    expect(res.raw.equals(bytes)).to.equal(true);
    expect(res.headers['content-type']).to.equal('application/pdf');
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['cache-control']).to.equal('private, max-age=31536000, immutable');
    expect(res.headers['x-attachment-id']).to.equal(sha(bytes));
    expect(res.headers['x-declared-content-type']).to.equal('application/pdf');
    expect(res.headers['content-disposition']).to.equal(`attachment; filename="r_sum_ _v2_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22v2%22.pdf`);
  });

  it('answers a byte range (206), an unsatisfiable one (416), If-None-Match on its content hash (304) and HEAD', async () => {
    const bytes = Buffer.from('%PDF-1.4 not really');
    const url = `/channels/proj/attachments/${sha(bytes)}`;
    const part = await hub.call('GET', url, bob, undefined, { range: 'bytes=0-3' });
    expect(part.status).to.equal(206);
    expect(part.raw.toString()).to.equal('%PDF');
    expect(part.headers['content-range']).to.equal(`bytes 0-3/${bytes.length}`);
    expect(part.headers['content-security-policy']).to.equal('sandbox');
    expect((await hub.call('GET', url, bob, undefined, { range: 'bytes=500-' })).status).to.equal(416);
    const cached = await hub.call('GET', url, bob, undefined, { 'if-none-match': `"${sha(bytes)}"` });
    expect(cached.status).to.equal(304);
    const head = await hub.call('HEAD', url, bob);
    expect(head.status).to.equal(200);
    expect(head.headers['content-length']).to.equal(String(bytes.length));
    expect(head.headers['x-content-type-options']).to.equal('nosniff');
    // Membership is still checked first.
    expect((await hub.call('GET', url, stranger, undefined, { range: 'bytes=0-3' })).status).to.equal(403);
  });

  it('never serves active content as its declared type, and never SVG inline; raster images are inline', async () => {
    const cases: Array<[string, string, string]> = [
      ['text/html; charset=utf-8', 'application/octet-stream', 'attachment'],
      ['image/svg+xml', 'application/octet-stream', 'attachment'],
      ['application/xml', 'application/octet-stream', 'attachment'],
      ['text/javascript', 'application/octet-stream', 'attachment'],
      ['application/atom+xml', 'application/octet-stream', 'attachment'],
      ['application/xhtml+xml', 'application/octet-stream', 'attachment'],
      ['not a type', 'application/octet-stream', 'attachment'],
      ['image/png', 'image/png', 'inline'],
      ['image/jpeg', 'image/jpeg', 'inline'],
      ['image/webp', 'image/webp', 'inline'],
      ['image/tiff', 'image/tiff', 'attachment'],
      ['text/plain', 'text/plain', 'attachment'],
    ];
    for (const [i, [declared, served, disposition]] of cases.entries()) {
      const bytes = Buffer.from(`<svg onload="alert(${i})"/>`);
      const id = (await upload('proj', ann, bytes, declared, `f${i}`)).body.id;
      const res = await hub.call('GET', `/channels/proj/attachments/${id}`, ann);
      expect(res.headers['content-type'], declared).to.equal(served);
      expect(String(res.headers['content-disposition']).split(';')[0], declared).to.equal(disposition);
      expect(res.headers['x-content-type-options']).to.equal('nosniff');
      expect(res.headers['x-declared-content-type'], declared).to.equal(declared);
    }
  });

  it('answers 400 for a malformed id, 404 for an unknown one or another channel, 403 for non-members', async () => {
    const bad = await hub.call('GET', '/channels/proj/attachments/not-a-hash', ann);
    expect(bad.status).to.equal(400);
    expect(bad.body.detail).to.equal("attachment id must be the blob's sha256 hex");
    const unknown = await hub.call('GET', `/channels/proj/attachments/${'0'.repeat(64)}`, ann);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.detail).to.equal(`attachment '${'0'.repeat(64)}' not found in 'proj'`);
    const id = sha(Buffer.from('%PDF-1.4 not really'));
    expect((await hub.call('GET', `/channels/elsewhere/attachments/${id}`, ann)).status).to.equal(404);
    expect((await hub.call('GET', `/channels/proj/attachments/${id}`, stranger)).status).to.equal(403);
    expect((await upload('proj', stranger, Buffer.from('x'), 'text/plain', 'x')).status).to.equal(403);
  });

  it('resolves post refs into {id, filename, content_type, size}; unknown or foreign ids and malformed ones 400', async () => {
    const bytes = Buffer.from('%PDF-1.4 not really');
    const post = await hub.call('POST', '/channels/proj/messages', ann, { body: 'see attached', attachments: [{ id: sha(bytes) }] });
    expect(post.status).to.equal(200);
    expect(post.body.data.attachments).to.deep.equal([{ id: sha(bytes), filename: 'résumé "v2".pdf', content_type: 'application/pdf', size: bytes.length }]);
    const renamed = await hub.call('POST', '/channels/proj/messages', ann, { body: 'again', attachments: [{ id: sha(bytes), filename: 'renamed.pdf' }] });
    expect(renamed.body.data.attachments).to.deep.equal([{ id: sha(bytes), filename: 'renamed.pdf', content_type: 'application/pdf', size: bytes.length }]);
    // The same blob cited twice in one post is refused (the reference's sentence).
    const twice = await hub.call('POST', '/channels/proj/messages', ann, { body: 'x', attachments: [{ id: sha(bytes) }, { id: sha(bytes), filename: 'renamed.pdf' }] });
    expect(twice.status).to.equal(400);
    expect(twice.body.detail).to.equal(`duplicate attachment ref ${sha(bytes).slice(0, 12)}…`);
    // Seed §2.4: the message carries its attachment refs at the top level too, and history serves them.
    expect(post.body.attachments).to.deep.equal(post.body.data.attachments);
    const row = ((await hub.call('GET', '/channels/proj/messages?limit=1000', ann)).body as Array<{ id: string; attachments: unknown }>).find((m) => m.id === post.body.id)!;
    expect(row.attachments).to.deep.equal(post.body.data.attachments);
    const unknown = await hub.call('POST', '/channels/proj/messages', ann, { body: 'x', attachments: [{ id: 'f'.repeat(64) }] });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.detail).to.equal(`attachment ffffffffffff… is not uploaded to 'proj' — POST the bytes to /channels/{channel}/attachments first`);
    const malformed = await hub.call('POST', '/channels/proj/messages', ann, { body: 'x', attachments: [{ id: 'nope' }] });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.detail).to.equal('attachment id must be the sha256 hex the upload returned');
    // An attachment of another channel cannot be cited here.
    const other = (await upload('elsewhere', ann, Buffer.from('only elsewhere'), 'text/plain', 'e.txt')).body.id;
    expect((await hub.call('POST', '/channels/proj/messages', ann, { body: 'x', attachments: [{ id: other }] })).status).to.equal(400);
  });

  it('stops serving a blob once every message carrying it was retracted', async () => {
    const bytes = Buffer.from('evidence that will be withdrawn');
    const id = (await upload('proj', ann, bytes, 'text/plain', 'evidence.txt')).body.id;
    const first = (await hub.call('POST', '/channels/proj/messages', ann, { body: 'one', attachments: [{ id }] })).body;
    const second = (await hub.call('POST', '/channels/proj/messages', bob, { body: 'two', attachments: [{ id }] })).body;
    expect((await hub.call('GET', `/channels/proj/attachments/${id}`, bob)).status).to.equal(200);
    expect((await hub.call('POST', `/channels/proj/messages/${first.id}/retract`, ann, {})).status).to.equal(200);
    expect((await hub.call('GET', `/channels/proj/attachments/${id}`, bob)).status).to.equal(200);
    expect((await hub.call('POST', `/channels/proj/messages/${second.id}/retract`, bob, {})).status).to.equal(200);
    const gone = await hub.call('GET', `/channels/proj/attachments/${id}`, bob);
    expect(gone.status).to.equal(404);
    expect(gone.body.detail).to.equal(`attachment '${id}' not found in 'proj'`);
  });
});
