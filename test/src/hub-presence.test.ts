/**
 * Presence as the reference derives it (§8.1 B3), through HTTP and the socket: recent HTTP activity
 * reads `active` for the configured window, a reception poll (`GET /owed` with `X-Agora-Reception`)
 * for its longer window, a held socket shows the declared state; `GET /presence/{id}` and
 * `PUT /presence`.
 */
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { until } from './helpers/until.js';
import { SocketClient } from './helpers/socket-client.js';

describe('hub presence', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  // A one-second activity window, so the window's end can be awaited; the reception window stays long.
  before(async () => {
    h = await startHub({ presence: { activeSeconds: 1, receptionSeconds: 3600 } });
    key = await h.seats(['amy', 'bea', 'cal', 'loner', 'op'], ['op']);
    await h.call('POST', '/channels/commons/leave', key.loner);
  });
  after(() => h.stop());

  const stateOf = async (id: string, asker = key.op) => (await h.call('GET', `/presence/${id}`, asker)).body as { state: string; updated_at: number };

  it('a seat with recent HTTP activity reads active until the window passes, then offline; admin-key calls are not seat activity', async () => {
    const before = Date.now() / 1000;
    expect((await h.call('GET', '/whoami', key.amy)).status).to.equal(200);
    const amy = await h.call('GET', '/presence/amy', key.bea);
    expect(amy.status).to.equal(200);
    expect(amy.body.agent_id).to.equal('amy');
    expect(amy.body.state).to.equal('active');
    expect(amy.body.updated_at).to.be.at.least(before - 1);
    await until(() => stateOf('amy'), { what: 'amy to go offline after the activity window', ok: (p) => p.state === 'offline' });
    expect((await stateOf('amy')).updated_at).to.equal(0);
    // The admin key acting on the hub does not make any seat active.
    await h.call('GET', '/agents', h.kernel.adminToken);
    expect((await stateOf('amy')).state).to.equal('offline');
  });

  it('a reception poll keeps a seat active for the reception window after its activity window ends', async () => {
    expect((await h.call('GET', '/owed', key.bea, undefined, { 'x-agora-reception': '1' })).status).to.equal(200);
    expect((await h.call('GET', '/owed', key.cal)).status).to.equal(200);
    await until(() => stateOf('cal'), { what: 'cal (no reception header) to go offline', ok: (p) => p.state === 'offline' });
    expect((await stateOf('bea')).state).to.equal('active');
  });

  it('GET /presence/{id}: yourself, a seat sharing a channel, or any id for an operator; otherwise the 404 sentence', async () => {
    expect((await h.call('GET', '/presence/loner', key.loner)).body).to.include({ agent_id: 'loner', state: 'active' });
    const hidden = await h.call('GET', '/presence/amy', key.loner);
    expect(hidden.status).to.equal(404);
    expect(hidden.body.detail).to.equal("no visible presence for 'amy'");
    const unknown = await h.call('GET', '/presence/nobody', key.amy);
    expect(unknown.status).to.equal(404);
    expect(unknown.body.detail).to.equal("no visible presence for 'nobody'");
    expect((await h.call('GET', '/presence/nobody', key.op)).body).to.deep.equal({ agent_id: 'nobody', state: 'offline', updated_at: 0 });
    expect((await h.call('GET', '/presence/amy')).status).to.equal(401);
  });

  it('PUT /presence stores idle or working (shown while a socket is held) and refuses anything else', async () => {
    const wrong = await h.call('PUT', '/presence', key.amy, { state: 'sleeping' });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.detail).to.equal("state must be 'idle' or 'working'");
    expect((await h.call('PUT', '/presence', key.amy, {})).status).to.equal(422);
    const declared = await h.call('PUT', '/presence', key.amy, { state: 'working' });
    expect(declared.status).to.equal(200);
    expect(declared.body).to.include({ agent_id: 'amy', state: 'working' });
    // Without a socket every call is activity: amy reads active, not her declared state.
    expect((await stateOf('amy', key.amy)).state).to.equal('active');
    const { url } = await h.kernel.listen();
    const socket = await SocketClient.open(`${url.replace(/^http/, 'ws')}/hub/ws?token=${key.amy}`);
    try {
      expect(await stateOf('amy')).to.deep.equal({ agent_id: 'amy', state: 'working', updated_at: declared.body.updated_at });
    } finally {
      socket.ws.close();
    }
    // The last socket closing stores offline; the connect itself was activity, so amy reads active for its window, then offline.
    await until(() => stateOf('amy'), { what: 'amy to go offline after her socket closed', ok: (p) => p.state === 'offline' });
  });
});
