/**
 * Issue 9 item 16: a private hub channel's existence is not told to non-members. For every hub
 * operation that takes a channel id (walked from /openapi.json, so a new route is covered too), an
 * outsider gets the same answer for a private channel as for one that does not exist; so do the
 * inbox ack and the socket's subscribe and post frames.
 */
import { expect } from 'chai';
import { startHub, type HubCall, type HubHarness } from './helpers/hub.js';
import { SocketClient } from './helpers/socket-client.js';

interface Operation {
  method: string;
  path: string;
}

/** Bodies that pass each route's schema, so the answer comes from the handler, not from validation. */
const bodies: Record<string, unknown> = {
  'POST /channels/{channel}/messages': { body: 'hello' },
  'POST /channels/{channel}/join': {},
  'POST /channels/{channel}/leave': {},
  'POST /channels/{channel}/invites': { agent_id: 'cyd' },
  'POST /channels/{channel}/archive': {},
  'PUT /channels/{channel}/fs/{path}': { content: 'x' },
  'PUT /channels/{channel}/store/{key}': { value: 1 },
  'PUT /channels/{channel}/reputation/{target}': { axis: 'trust', value: 1, note: '' },
  'PUT /channels/{channel}/messages/{id}/rating': { value: 1, note: '' },
  'POST /channels/{channel}/messages/{id}/retract': {},
  'POST /channels/{channel}/messages/{id}/retract_thread': {},
  'POST /channels/{channel}/blocks': { agent: 'bob' },
  'POST /channels/{channel}/ruling-acks': { keys: ['ruling:x'] },
};

describe('hub private channels: an outsider cannot tell a private channel from a missing one', function () {
  this.timeout(120_000);
  let hub: HubHarness;
  let ada: string;
  let bob: string;
  let cyd: string;
  let messageId: string;
  let operations: Operation[];

  before(async () => {
    hub = await startHub();
    ada = await hub.seat('ada');
    bob = await hub.seat('bob');
    cyd = await hub.seat('cyd');
    await hub.seat('dee');
    await hub.room('secret', ada, [], true);
    const invite = (await hub.call('POST', '/channels/secret/invites', ada, { agent_id: 'bob' })).body.invite_token as string;
    expect((await hub.call('POST', '/channels/secret/join', bob, { invite_token: invite })).status).to.equal(200);
    const posted = await hub.call('POST', '/channels/secret/messages', ada, { body: 'for members only' });
    expect(posted.status).to.equal(200);
    messageId = posted.body.id;
    expect((await hub.call('PUT', '/channels/secret/store/plan', ada, { value: { a: 1 } })).status).to.equal(200);
    expect((await hub.call('POST', '/dms/bob/messages', ada, { body: 'psst', status: 'fyi' })).status).to.equal(200);
    await hub.room('square', ada, [], false);
    const doc = (await hub.kernel.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
    operations = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/hub/') && path.includes('{channel}'))
      .flatMap(([path, ops]) => Object.keys(ops).filter((m) => ['get', 'post', 'put', 'delete', 'patch'].includes(m)).map((m) => ({ method: m.toUpperCase(), path: path.slice('/hub'.length) })));
  });
  after(() => hub?.stop());

  const fill = (path: string, channel: string) =>
    path
      .replace('{channel}', encodeURIComponent(channel))
      .replace('{id}', messageId)
      .replace('{path}', 'notes/a.md')
      .replace('{key}', 'plan')
      .replace(/\{(target|agent)\}/, 'bob')
      .replace(/\{[a-z_]+\}/g, 'x');
  const ask = (op: Operation, channel: string, key: string): Promise<HubCall> => {
    const body = bodies[`${op.method} ${op.path}`] ?? (op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
    return hub.call(op.method, fill(op.path, channel), key, body);
  };
  /** The answer with the channel's name blanked, so two names can be compared. */
  const shape = (res: HubCall, channel: string) => ({ status: res.status, body: JSON.stringify(res.body).split(channel).join('<c>') });

  it('walks every hub operation that takes a channel id', () => {
    expect(operations.length).to.be.greaterThan(20);
    expect(operations.map((o) => `${o.method} ${o.path}`)).to.include.members(['GET /channels/{channel}/messages', 'GET /channels/{channel}/info', 'POST /channels/{channel}/join', 'GET /channels/{channel}/ledger', 'GET /channels/{channel}/store/{key}']);
  });

  it('answers an outsider the same for a private room as for a missing channel, on every operation', async () => {
    for (const op of operations) {
      const hidden = await ask(op, 'secret', cyd);
      const missing = await ask(op, 'ghost', cyd);
      expect(shape(hidden, 'secret'), `${op.method} ${op.path}`).to.deep.equal(shape(missing, 'ghost'));
    }
  });

  it('also for a direct channel between two other seats, on every operation', async () => {
    for (const op of operations) {
      const hidden = await ask(op, 'dm:ada--bob', cyd);
      const missing = await ask(op, 'dm:ada--dee', cyd);
      expect(shape(hidden, 'dm:ada--bob'), `${op.method} ${op.path}`).to.deep.equal(shape(missing, 'dm:ada--dee'));
    }
  });

  it('still serves members, and still tells a public room apart (its existence is public)', async () => {
    expect((await hub.call('GET', '/channels/secret/info', bob)).status).to.equal(200);
    expect((await hub.call('GET', '/channels/secret/ledger', bob)).body.verified).to.equal(true);
    const square = await hub.call('GET', '/channels/square/messages', cyd);
    expect(square.status).to.equal(403);
    const joined = await hub.call('POST', '/channels/square/join', cyd, {});
    expect(joined.status).to.equal(200);
  });

  it('answers the inbox ack the same for a private room as for a missing channel', async () => {
    const hidden = await hub.call('POST', '/inbox/ack', cyd, { cursors: { secret: 1 } });
    const missing = await hub.call('POST', '/inbox/ack', cyd, { cursors: { ghost: 1 } });
    expect(shape(hidden, 'secret')).to.deep.equal(shape(missing, 'ghost'));
  });

  it("answers the socket's subscribe and post frames the same for a private room as for a missing channel", async () => {
    const base = (await hub.kernel.listen()).url.replace(/^http/, 'ws');
    const client = await SocketClient.open(`${base}/hub/ws?token=${encodeURIComponent(cyd)}`);
    try {
      const errorsFor = (frame: Record<string, unknown>) => client.reply(frame, ['error']);
      const blank = (f: Record<string, unknown>, name: string) => JSON.stringify(f).split(name).join('<c>');
      expect(blank(await errorsFor({ type: 'subscribe', channels: ['secret'] }), 'secret')).to.equal(blank(await errorsFor({ type: 'subscribe', channels: ['ghost'] }), 'ghost'));
      expect(blank(await errorsFor({ type: 'post', channel: 'secret', body: 'x' }), 'secret')).to.equal(blank(await errorsFor({ type: 'post', channel: 'ghost', body: 'x' }), 'ghost'));
    } finally {
      client.ws.terminate();
    }
  });
});
