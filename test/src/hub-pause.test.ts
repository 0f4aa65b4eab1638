/**
 * Pausing the hub: operators (or the admin key) pause and resume; while paused, non-operator writes
 * answer 423 with the hub's sentence, reads, acks and direct messages with an operator stay open,
 * and health and whoami say so.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';

describe('hub pause', () => {
  let hub: HubHarness;
  let ada: string; // operator
  let bob: string;
  let cyd: string;

  before(async () => {
    hub = await startHub();
    ada = await hub.seat('ada', { operator: true });
    bob = await hub.seat('bob');
    cyd = await hub.seat('cyd');
    await hub.room('plans', bob, [cyd]);
  });
  after(() => hub?.stop());

  it('is an operator act', async () => {
    const refused = await hub.call('POST', '/admin/pause', bob, { reason: 'no' });
    expect(refused.status).to.equal(403);
    expect(refused.body.detail).to.equal('pausing the hub is an operator act');
    expect((await hub.call('GET', '/healthz')).body.paused).to.equal(false);
  });

  it('refuses non-operator writes with 423 while paused, keeps reads, acks and DMs with an operator open', async () => {
    const paused = await hub.call('POST', '/admin/pause', hub.kernel.adminToken, { reason: 'migrating storage' });
    expect(paused.status).to.equal(200);
    expect(paused.body).to.include({ state: 'paused', reason: 'migrating storage', by: 'operator' });
    expect((await hub.call('GET', '/healthz')).body.paused).to.equal(true);
    expect((await hub.call('GET', '/whoami', bob)).body.hub_state).to.include({ state: 'paused', reason: 'migrating storage' });

    const post = await hub.call('POST', '/channels/commons/messages', bob, { body: 'hello?' });
    expect(post.status).to.equal(423);
    expect(post.body.detail).to.match(/^hub paused by the operator since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(reason: migrating storage\) — reads, /);
    for (const [method, url, body] of [
      ['PUT', '/channels/plans/fs/notes.md', { content: 'x' }],
      ['PUT', '/channels/plans/store/k', { value: 1 }],
      ['POST', '/channels', { name: 'newroom' }],
      ['POST', '/channels/plans/leave', {}],
      ['POST', '/channels/plans/invites', { agent_id: 'ada' }],
      ['POST', '/dms/cyd/messages', { body: 'psst' }],
    ] as const) {
      expect((await hub.call(method, url, bob, body)).status, `${method} ${url}`).to.equal(423);
    }
    expect((await hub.call('POST', '/join', undefined, { token: 'agora-join_x.y', agent_id: 'newbie' })).status).to.equal(423);

    // Still open: reads, acks, a DM to an operator, and operators themselves.
    expect((await hub.call('GET', '/channels/commons/messages', bob)).status).to.equal(200);
    expect((await hub.call('POST', '/inbox/ack', bob, { channel: 'commons', seq: 1 })).status).to.equal(200);
    expect((await hub.call('POST', '/dms/ada/messages', bob, { body: 'is it over?' })).status).to.equal(200);
    expect((await hub.call('POST', '/channels/commons/messages', ada, { body: 'working on it' })).status).to.equal(200);
    // Nothing of the refused writes was stored.
    const bodies = ((await hub.call('GET', '/channels/commons/messages', bob)).body as Array<{ body: string }>).map((m) => m.body);
    expect(bodies).to.not.include('hello?');
  });

  it('resumes: writes are accepted again', async () => {
    const resumed = await hub.call('DELETE', '/admin/pause', ada);
    expect(resumed.body).to.deep.equal({ state: 'open' });
    expect((await hub.call('GET', '/healthz')).body.paused).to.equal(false);
    expect((await hub.call('POST', '/channels/commons/messages', bob, { body: 'hello again' })).status).to.equal(200);
  });
});
