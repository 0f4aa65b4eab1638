import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

const ALLOWED = "['authorship_required', 'expected_traffic', 'gated_acts', 'language', 'norms', 'norms_required', 'purpose', 'response_sla_minutes', 'rulings_required', 'state', 'traffic_policy']";

describe('hub content: channel store and channel:meta', () => {
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

  const putMeta = (token: string, value: unknown, expect_version?: number) =>
    hub.call('PUT', '/channels/proj/store/channel%3Ameta', token, expect_version === undefined ? { value } : { value, expect_version });

  it("answers 404 for meta never written (the client's 'no meta yet')", async () => {
    const res = await hub.call('GET', '/channels/proj/store/channel%3Ameta', ann);
    expect(res.status).to.equal(404);
    expect(res.body.detail).to.equal("key 'channel:meta' not found in 'proj' store");
  });

  it('lets only the owner or an operator write channel:meta (403 for members)', async () => {
    const res = await putMeta(ann, { purpose: 'mine' });
    expect(res.status).to.equal(403);
    expect(res.body.detail).to.match(/^'channel:meta' is channel-level metadata: writable by the channel owner \(owner\), an operator/);
  });

  it('refuses unknown fields naming them and the allowed list, and per-field type errors', async () => {
    const unknown = await putMeta(owner, { purpose: 'x', mood: 'sunny', colour: 'red' });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.detail).to.equal(`unknown channel:meta fields: ['colour', 'mood'] (allowed: ${ALLOWED})`);
    for (const bad of [{ language: 'loud' }, { norms_required: 'yes' }, { response_sla_minutes: 0 }, { response_sla_minutes: 1.5 }, { gated_acts: ['nuke'] }, { state: 'frozen' }, { purpose: 'x'.repeat(501) }, { traffic_policy: 'chaos' }]) {
      const res = await putMeta(owner, bad);
      expect(res.status, JSON.stringify(bad)).to.equal(400);
      expect(res.body.detail, JSON.stringify(bad)).to.match(/^channel:meta\.\w+ /);
    }
    expect((await putMeta(owner, 'not an object')).status).to.equal(400);
  });

  it('stores meta with versions; a stale expect_version is a 409 (concurrent edit)', async () => {
    const first = await putMeta(owner, { purpose: 'ship the hub', response_sla_minutes: 30, language: 'terse', traffic_policy: 'noticeboard' }, 0);
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ channel: 'proj', key: 'channel:meta', version: 1, updated_by: 'owner' });
    expect(first.body.value).to.deep.equal({ purpose: 'ship the hub', response_sla_minutes: 30, language: 'terse', traffic_policy: 'noticeboard' });
    const stale = await putMeta(op, { purpose: 'other' }, 0);
    expect(stale.status).to.equal(409);
    expect(stale.body.detail).to.equal('store version conflict: current version is 1');
    const second = await putMeta(op, { purpose: 'ship the hub well', response_sla_minutes: 30, language: 'terse' }, 1);
    expect(second.body.version).to.equal(2);
    // traffic_policy survives a write that omits it.
    expect(second.body.value.traffic_policy).to.equal('noticeboard');
    const read = await hub.call('GET', '/channels/proj/store/channel%3Ameta', ann);
    expect(read.body).to.include({ version: 2, updated_by: 'op' });
  });

  it('serves meta, SLA, language and state in channel info', async () => {
    const info = (await hub.call('GET', '/channels/proj/info', ann)).body;
    expect(info.meta).to.include({ purpose: 'ship the hub well', language: 'terse' });
    expect(info).to.include({ response_sla_minutes: 30, language: 'terse', state: 'open' });
    expect(info.channel).to.include({ name: 'proj', created_by: 'owner' });
    expect(info.phases).to.deep.equal([]);
  });

  it("refuses member posts and uploads in a closed channel with 409; the owner still posts; reopening clears it", async () => {
    const meta = (await hub.call('GET', '/channels/proj/store/channel%3Ameta', owner)).body;
    expect((await putMeta(owner, { ...meta.value, state: 'closed' }, meta.version)).status).to.equal(200);
    const refused = await hub.call('POST', '/channels/proj/messages', ann, { body: 'hi' });
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.equal("channel 'proj' is closed to new posts");
    const upload = await hub.call('POST', '/channels/proj/attachments?filename=a.txt', ann, Buffer.from('a'), { 'content-type': 'text/plain' });
    expect(upload.status).to.equal(409);
    expect((await hub.call('GET', '/channels/proj/info', ann)).body.state).to.equal('closed');
    expect((await hub.call('POST', '/channels/proj/messages', owner, { body: 'closing words' })).status).to.equal(200);
    const now = (await hub.call('GET', '/channels/proj/store/channel%3Ameta', owner)).body;
    await putMeta(owner, { ...now.value, state: 'open' }, now.version);
    expect((await hub.call('POST', '/channels/proj/messages', ann, { body: 'hi' })).status).to.equal(200);
  });

  it('keeps any key with versions and CAS; lists keys sorted without values and never fs/ keys', async () => {
    const a = await hub.call('PUT', '/channels/proj/store/notes%3Azeta', ann, { value: { n: 1 } });
    expect(a.body).to.deep.equal({ channel: 'proj', key: 'notes:zeta', value: { n: 1 }, version: 1, updated_by: 'ann', updated_at: a.body.updated_at });
    expect((await hub.call('PUT', '/channels/proj/store/notes%3Azeta', ann, { value: { n: 2 } })).body.version).to.equal(2);
    const stale = await hub.call('PUT', '/channels/proj/store/notes%3Azeta', ann, { value: 3, expect_version: 1 });
    expect(stale.status).to.equal(409);
    expect(stale.body.detail).to.equal('store version conflict: current version is 2');
    await hub.call('PUT', '/channels/proj/store/alpha', ann, { value: null });
    await hub.call('PUT', '/channels/proj/fs/docs/x.md', ann, { content: 'a file' });
    const keys = (await hub.call('GET', '/channels/proj/store', ann)).body as Array<Record<string, unknown>>;
    expect(keys.map((k) => k.key)).to.deep.equal(['alpha', 'channel:meta', 'notes:zeta']);
    expect(keys[2]).to.deep.equal({ key: 'notes:zeta', version: 2, updated_by: 'ann', updated_at: keys[2]!.updated_at });
    const fsKey = await hub.call('PUT', '/channels/proj/store/fs%2Fdocs%2Fx.md', ann, { value: 'sneaky' });
    expect(fsKey.status).to.equal(400);
    const missing = await hub.call('GET', '/channels/proj/store/nope', ann);
    expect(missing.status).to.equal(404);
    expect(missing.body.detail).to.equal("key 'nope' not found in 'proj' store");
  });

  it('caps store values at 256 KiB (413) and needs a value', async () => {
    const big = await hub.call('PUT', '/channels/proj/store/big', ann, { value: 'x'.repeat(256 * 1024) });
    expect(big.status).to.equal(413);
    expect((await hub.call('PUT', '/channels/proj/store/big', ann, { value: 'x'.repeat(1000) })).status).to.equal(200);
    expect((await hub.call('PUT', '/channels/proj/store/big', ann, { expect_version: 1 })).status).to.equal(422);
  });

  it("honours gated_acts: fs_remove and decision become the room admins' acts", async () => {
    const meta = (await hub.call('GET', '/channels/proj/store/channel%3Ameta', owner)).body;
    await putMeta(owner, { ...meta.value, gated_acts: ['fs_remove', 'decision'] }, meta.version);
    const del = await hub.call('DELETE', '/channels/proj/fs/docs/x.md', ann);
    expect(del.status).to.equal(403);
    expect(del.body.detail).to.match(/^deleting files in 'proj' is a gated act/);
    expect((await hub.call('PUT', '/channels/proj/store/decision%3Adb', ann, { value: 'lmdb' })).status).to.equal(403);
    expect((await hub.call('PUT', '/channels/proj/store/decision%3Adb', owner, { value: 'lmdb' })).status).to.equal(200);
    expect((await hub.call('DELETE', '/channels/proj/fs/docs/x.md', owner)).body).to.deep.equal({ deleted: true });
  });

  it('applies the membership gate', async () => {
    expect((await hub.call('GET', '/channels/proj/store', stranger)).status).to.equal(403);
    expect((await hub.call('GET', '/channels/none/store', stranger)).status).to.equal(404);
  });
});
