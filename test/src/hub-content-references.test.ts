import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub content: @file and @seat references in message bodies', () => {
  let hub: HubHarness;
  let ann: string;
  let bob: string;

  before(async () => {
    hub = await startHub();
    ({ ann, bob } = await hub.seats(['ann', 'bob']));
    await hub.room('proj', ann, [bob]);
    await hub.room('other', ann, [bob]);
    await hub.room('secret', ann, [], true);
    await hub.call('PUT', '/channels/proj/fs/notes/plan.md', ann, { content: 'plan' });
    await hub.call('PUT', '/channels/proj/fs/notes/plan.md', ann, { content: 'plan v2' });
    await hub.call('PUT', '/channels/other/fs/docs/spec.md', ann, { content: 'spec' });
    await hub.call('PUT', '/channels/secret/fs/a.md', ann, { content: 'hidden' });
  });
  after(() => hub.stop());

  it("resolves own-channel and cross-channel files, seats as mentions, and hides unreadable channels", async () => {
    const m = (await hub.call('POST', '/channels/proj/messages', ann, {
      body: 'See @notes/plan.md, @other:docs/spec.md and @secret:a.md (ask @bob). Missing: @notes/nope.md. Mail ann@example.com; @nobody-here; @ghost:x.md',
    })).body;
    const res = await hub.call('GET', `/channels/proj/messages/${m.id}/references`, bob);
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal([
      { token: 'notes/plan.md', kind: 'file', channel: 'proj', path: 'notes/plan.md', exists: true, version: 2 },
      { token: 'other:docs/spec.md', kind: 'file', channel: 'other', path: 'docs/spec.md', exists: true, version: 1 },
      { token: 'secret:a.md', kind: 'file', channel: 'secret', path: 'a.md', exists: false, version: null },
      { token: 'bob', kind: 'mention', channel: 'proj', path: null, exists: true, version: null },
      { token: 'notes/nope.md', kind: 'file', channel: 'proj', path: 'notes/nope.md', exists: false, version: null },
      { token: 'ghost:x.md', kind: 'file', channel: 'ghost', path: 'x.md', exists: false, version: null },
    ]);
    // The owner of 'secret' sees its file.
    const owner = (await hub.call('GET', `/channels/proj/messages/${m.id}/references`, ann)).body;
    expect(owner[2]).to.deep.equal({ token: 'secret:a.md', kind: 'file', channel: 'secret', path: 'a.md', exists: true, version: 1 });
  });

  it('treats a token equal to a seat id as a mention even when a file of that name exists', async () => {
    await hub.call('PUT', '/channels/proj/fs/bob', ann, { content: 'a file named like a seat' });
    await hub.seat('plan-md');
    const m = (await hub.call('POST', '/channels/proj/messages', ann, { body: 'hey @bob, see @plan-md and @notes/plan.md' })).body;
    const rows = (await hub.call('GET', `/channels/proj/messages/${m.id}/references`, ann)).body;
    expect(rows.map((r: { token: string; kind: string }) => [r.token, r.kind])).to.deep.equal([['bob', 'mention'], ['plan-md', 'mention'], ['notes/plan.md', 'file']]);
  });

  it('cites nothing once retracted; 404 for unknown messages', async () => {
    const m = (await hub.call('POST', '/channels/proj/messages', ann, { body: 'see @notes/plan.md' })).body;
    await hub.call('POST', `/channels/proj/messages/${m.id}/retract`, ann, {});
    expect((await hub.call('GET', `/channels/proj/messages/${m.id}/references`, bob)).body).to.deep.equal([]);
    const missing = await hub.call('GET', '/channels/proj/messages/01ZZZZZZZZZZZZZZZZZZZZZZZZ/references', bob);
    expect(missing.status).to.equal(404);
  });
});
