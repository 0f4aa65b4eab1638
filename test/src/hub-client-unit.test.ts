import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, WebSocket as NodeWebSocket } from 'ws';
import { HubClient, HubError, PROTOCOL, check_protocol, isMissingFeature, turnHash, type Envelope, type LedgerTurn } from '@keel/hub-client';

// A tiny fake hub: records every request and answers what the current test scripted. A fake is
// fine here: these tests pin the client's wire behaviour, not the hub's.
interface Recorded { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }
interface Scripted { status?: number; json?: unknown; text?: string; contentType?: string; delayMs?: number }

describe('hub client (unit, local fake hub)', () => {
  let server: Server;
  let origin: string;
  let requests: Recorded[] = [];
  let script: (req: Recorded) => Scripted = () => ({ json: {} });
  const last = (): Recorded => requests[requests.length - 1]!;

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded: Recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        requests.push(recorded);
        const answer = script(recorded);
        const send = (): void => {
          if (res.destroyed) return;
          const text = answer.text ?? JSON.stringify(answer.json ?? null);
          res.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? (answer.text === undefined ? 'application/json' : 'text/plain') });
          res.end(text);
        };
        if (answer.delayMs) setTimeout(send, answer.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    requests = [];
    script = () => ({ json: {} });
  });

  const client = (extra: ConstructorParameters<typeof HubClient>[0] = {}): HubClient => new HubClient({ base_url: origin, bearer_token: 'agora_key', ...extra });

  it('sends X-Hub-Client and the bearer on every request, Content-Type only with a body', async () => {
    const hub = client();
    await hub.channels();
    expect(last().method).to.equal('GET');
    expect(last().headers['x-hub-client']).to.equal('keel-hub-client/0.1.0');
    expect(last().headers['authorization']).to.equal('Bearer agora_key');
    expect(last().headers['content-type']).to.equal(undefined);

    await hub.post_message('room', { body: 'hi', title: 't', reply_to: null });
    expect(last().headers['content-type']).to.equal('application/json');
    expect(JSON.parse(last().body.toString())).to.deep.equal({ body: 'hi', title: 't', reply_to: null });

    await hub.leave('room');
    expect(last().method).to.equal('POST');
    expect(last().headers['content-type']).to.equal(undefined);
    expect(last().body.length).to.equal(0);

    hub.set_bearer_token(null);
    await hub.healthz();
    expect(last().headers['authorization']).to.equal(undefined);
    expect(last().headers['x-hub-client']).to.equal('keel-hub-client/0.1.0');
  });

  it('encodes identifiers per path segment and vfs paths per segment; queries with URLSearchParams', async () => {
    const hub = client();
    await hub.channel_info('dm:a--b');
    expect(last().url).to.equal('/channels/dm%3Aa--b/info');
    await hub.fs_read('dm:a--b', 'notes/plan v2.md');
    expect(last().url).to.equal('/channels/dm%3Aa--b/fs/notes/plan%20v2.md');
    await hub.fs_read('room', 'notes/plan v2.md', { version: 2 });
    expect(last().url).to.equal('/channels/room/fs/notes/plan%20v2.md?version=2');
    await hub.fs_delete('room', 'a b/c#d.md', 3);
    expect(last()).to.include({ method: 'DELETE', url: '/channels/room/fs/a%20b/c%23d.md?expect_version=3' });
    await hub.fs_put('room', 'notes/x.md', { content: 'hello', expect_version: 0 });
    expect(last()).to.include({ method: 'PUT', url: '/channels/room/fs/notes/x.md' });
    expect(JSON.parse(last().body.toString())).to.deep.equal({ content: 'hello', expect_version: 0 });
    await hub.store_get('room', 'a/b');
    expect(last().url).to.equal('/channels/room/store/a%2Fb');
    script = () => ({ status: 404, json: { detail: "key 'channel:meta' not found in 'room' store" } });
    expect(await hub.channel_meta('room')).to.equal(null);
    expect(last().url).to.equal('/channels/room/store/channel%3Ameta');
    script = () => ({ json: {} });
    await hub.messages('room', { since: 10, limit: 50, sort: 'votes' });
    expect(last().url).to.equal('/channels/room/messages?since=10&limit=50&sort=votes');
    await hub.search({ q: '', channel: ['a b', 'dm:x--y'], rated: 'up', limit: 5 });
    expect(last().url).to.equal('/search?q=&channel=a+b&channel=dm%3Ax--y&limit=5&rated=up');
    await hub.send_dm('bob', { body: 'yo' });
    expect(last().url).to.equal('/dms/bob/messages');
    expect(JSON.parse(last().body.toString())).to.deep.equal({ body: 'yo', status: 'open' });
    await hub.ack('dm:a--b', 7);
    expect(last().url).to.equal('/inbox/ack');
    expect(JSON.parse(last().body.toString())).to.deep.equal({ channel: 'dm:a--b', seq: 7 });
    await hub.rate_message('room', '01ABC', -1);
    expect(last()).to.include({ method: 'PUT', url: '/channels/room/messages/01ABC/rating' });
    expect(JSON.parse(last().body.toString())).to.deep.equal({ value: -1, note: '' });
  });

  it('resolves a relative base_url against the page origin and keeps its prefix', async () => {
    const hub = new HubClient({ base_url: '/hub/', origin, bearer_token: 'k' });
    expect(hub.base_url).to.equal(`${origin}/hub`);
    await hub.owed();
    expect(last().url).to.equal('/hub/owed');
    expect(new HubClient({ origin }).base_url).to.equal(origin);
    expect(new HubClient({ base_url: 'http://10.0.0.2:8765/x/' }).base_url).to.equal('http://10.0.0.2:8765/x');
    const orphan = new HubClient({ base_url: '/hub' });
    expect(orphan.base_url).to.equal(null);
    const err = await orphan.channels().then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(HubError);
    expect((err as HubError).status).to.equal(null);
  });

  it('derives the live-socket URL (http->ws, https->wss, prefix kept), uses a host ws_url verbatim, null without a key', () => {
    expect(new HubClient({ base_url: 'http://127.0.0.1:8765', bearer_token: 'agora_abc' }).ws_url()).to.equal('ws://127.0.0.1:8765/ws?token=agora_abc');
    expect(new HubClient({ base_url: 'https://hub.example/hub/', bearer_token: 'with spaces' }).ws_url()).to.equal('wss://hub.example/hub/ws?token=with+spaces');
    expect(new HubClient({ base_url: '/keel/hub', origin: 'https://team.example', bearer_token: 'k&=' }).ws_url()).to.equal('wss://team.example/keel/hub/ws?token=k%26%3D');
    expect(new HubClient({ base_url: 'http://h', bearer_token: 'k', ws_url: 'wss://relay.example/live' }).ws_url()).to.equal('wss://relay.example/live');
    expect(new HubClient({ base_url: 'http://h', ws_url: '/relay/ws' }).ws_url()).to.equal('/relay/ws');
    const keyless = new HubClient({ base_url: 'http://h' });
    expect(keyless.ws_url()).to.equal(null);
    keyless.set_bearer_token('late');
    expect(keyless.ws_url()).to.equal('ws://h/ws?token=late');
    expect(() => new HubClient({ base_url: 'http://h' }).connect_socket()).to.throw(HubError);
  });

  it('raises HubError with the status and the hub sentence (detail, else error, else raw text)', async () => {
    const hub = client();
    script = () => ({ status: 409, json: { detail: 'store version conflict: current version is 3' } });
    const conflict = (await hub.fs_put('room', 'a.md', { content: 'x', expect_version: 1 }).catch((e: unknown) => e)) as HubError;
    expect(conflict).to.be.instanceOf(HubError).and.instanceOf(Error);
    expect(conflict.status).to.equal(409);
    expect(conflict.detail).to.equal('store version conflict: current version is 3');
    expect(conflict.message).to.equal('fs_put failed: store version conflict: current version is 3');

    script = () => ({ status: 422, json: { detail: [{ type: 'int_parsing', loc: ['query', 'since'], msg: 'bad' }] } });
    const invalid = (await hub.messages('room').catch((e: unknown) => e)) as HubError;
    expect(invalid.status).to.equal(422);
    expect(invalid.detail).to.contain('int_parsing');

    script = () => ({ status: 403, json: { error: 'not yours' } });
    expect(((await hub.desk().catch((e: unknown) => e)) as HubError).detail).to.equal('not yours');

    script = () => ({ status: 502, text: 'Bad Gateway from the proxy' });
    const proxied = (await hub.inbox().catch((e: unknown) => e)) as HubError;
    expect(proxied).to.include({ status: 502, detail: 'Bad Gateway from the proxy' });

    script = () => ({ status: 404, json: { detail: 'Not Found' } });
    const missing = await hub.reputation_hub().catch((e: unknown) => e);
    expect(isMissingFeature(missing)).to.equal(true);
    expect(isMissingFeature(conflict)).to.equal(false);

    script = () => ({ json: {}, delayMs: 500 });
    const slow = (await client({ timeout_ms: 50 }).presence().catch((e: unknown) => e)) as HubError;
    expect(slow).to.be.instanceOf(HubError);
    expect(slow.status).to.equal(null);
    expect(slow.message).to.match(/^presence failed: no answer within/);
  });

  it('warns on a protocol mismatch without throwing', async () => {
    const hub = client();
    script = () => ({ json: { ok: true, paused: false, protocol: 'agora/0.9', version: '9.9.9' } });
    const health = await hub.healthz();
    const warning = hub.check_protocol(health);
    expect(warning).to.be.a('string').and.contain('agora/0.9').and.contain(PROTOCOL);
    expect(check_protocol({ protocol: PROTOCOL })).to.equal(null);
    expect(check_protocol(null)).to.be.a('string');
    expect(check_protocol({})).to.be.a('string');
  });

  it('meta(): the identity summary, and "no usable key" on 401/403', async () => {
    const hub = client();
    script = () => ({ json: { id: 'ann', mission: 'ship it', hub_charter: { version: 2, your_receipt: null, current: false, view: ['member'], view_current: true, read_with: 'read_charter() / GET /charter' } } });
    const meta = await hub.meta();
    expect(meta).to.deep.include({ ok: true, hub_url: origin, seat: 'ann', seat_key_present: true, operator: false, mission: 'ship it' });
    expect(meta.hub_charter).to.include({ version: 2, your_receipt: null });
    expect(last().url).to.equal('/whoami');

    script = () => ({ status: 401, json: { detail: 'invalid api key' } });
    expect(await hub.meta()).to.deep.equal({ ok: false, hub_url: origin, seat: null, seat_key_present: false, operator: false, mission: '', hub_charter: null });
    script = () => ({ status: 403, json: { detail: 'this identity has been retired' } });
    expect(await hub.meta()).to.include({ ok: false, seat_key_present: false });
    script = () => ({ status: 500, json: { detail: 'boom' } });
    expect(await hub.meta().catch((e: unknown) => e)).to.be.instanceOf(HubError);
  });

  it('read_message returns the requested row of the list; create_invite delivers the token by DM', async () => {
    const hub = client();
    script = () => ({ json: [{ id: 'parent', seq: 1 }, { id: 'wanted', seq: 2 }] });
    expect((await hub.read_message('room', 'wanted')).id).to.equal('wanted');
    script = () => ({ json: [{ id: 'wanted', seq: 2 }, { id: 'other', seq: 3 }] });
    expect((await hub.read_message('room', 'wanted')).id).to.equal('wanted');

    script = (req) => (req.url.endsWith('/invites') ? { json: { invite_token: 'invite_abc', channel: 'room', agent_id: 'bob' } } : { json: { id: 'dm1', channel: 'dm:ann--bob' } });
    const invite = await hub.create_invite('room', 'bob');
    expect(invite).to.deep.include({ invite_token: 'invite_abc', dm_error: null });
    expect(requests.map((r) => `${r.method} ${r.url}`).slice(-2)).to.deep.equal(['POST /channels/room/invites', 'POST /dms/bob/messages']);
    const dm = JSON.parse(last().body.toString()) as { body: string; data: unknown };
    expect(dm.body).to.contain('invite_abc');
    expect(dm.data).to.deep.equal({ invite_token: 'invite_abc', channel: 'room' });
  });

  it('uploads raw bytes with the declared type and the file name in the query; reads blobs back', async () => {
    const hub = client();
    script = () => ({ json: { id: 'f'.repeat(64), filename: 'a b.png', content_type: 'image/png', size: 3 } });
    await hub.upload_attachment('room', new Uint8Array([1, 2, 3]), { filename: 'a b.png', content_type: 'image/png' });
    expect(last()).to.include({ method: 'POST', url: '/channels/room/attachments?filename=a+b.png' });
    expect(last().headers['content-type']).to.equal('image/png');
    expect([...last().body]).to.deep.equal([1, 2, 3]);
    await hub.upload_attachment('room', new Blob(['hey'], { type: 'text/plain' }));
    expect(last().headers['content-type']).to.equal('text/plain');
    expect(last().url).to.equal('/channels/room/attachments?filename=file');

    script = () => ({ text: 'raw-bytes', contentType: 'application/octet-stream' });
    const blob = await hub.attachment_blob('room', 'f'.repeat(64));
    expect(await blob.text()).to.equal('raw-bytes');
    expect(hub.attachment_url('dm:a--b', 'abc')).to.equal(`${origin}/channels/dm%3Aa--b/attachments/abc`);
  });

  it('ledger() adds the client-side verification', async () => {
    const turn: Omit<LedgerTurn, 'hash'> = { seq: 1, id: 'm1', sender: 'ann', kind: 'message', status: 'fyi', urgency: 'inbox', critical: 0, downgraded: 0, to: [], title: '', body: 'hello', data: null, reply_to: null, created_at: 1767225600 };
    const hash = await turnHash('', turn, 'room');
    script = () => ({ json: { channel: 'room', count: 1, head: hash, turns: [{ ...turn, hash, retracted: false }], verified: false, broken_at: 1 } });
    const ledger = await client().ledger('room');
    expect(ledger.verification).to.deep.equal({ ok: true, broken_at: null, head_mismatch: false, computed_head: hash, hashed: 1, legacy: 0, redacted: 0 });
    expect(ledger.verified).to.equal(false);
  });

  it('connect_socket subscribes on open and dispatches envelope frames', async () => {
    const wss = new WebSocketServer({ noServer: true });
    const upgrades: string[] = [];
    const frames: unknown[] = [];
    server.on('upgrade', (req, socket, head) => {
      upgrades.push(req.url ?? '');
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on('message', (data) => {
          const frame = JSON.parse(data.toString()) as { type: string; channels: string[] };
          frames.push(frame);
          if (frame.type !== 'subscribe') return;
          ws.send(JSON.stringify({ type: 'subscribed', channels: frame.channels }));
          ws.send(JSON.stringify({ type: 'envelope', envelope: { id: 'm9', channel: 'room', seq: 9 } }));
        });
      });
    });
    try {
      const hub = client({ base_url: `${origin}/hub`, bearer_token: 'seat key', WebSocket: NodeWebSocket });
      const envelope = await new Promise<Envelope>((resolve, reject) => {
        const live = hub.connect_socket({
          channels: ['room'],
          since: { room: 8 },
          on_envelope: (env) => {
            live.close();
            resolve(env);
          },
          on_error: (frame) => reject(new Error(frame.detail)),
          on_socket_error: () => reject(new Error('socket error')),
        });
      });
      expect(envelope).to.include({ id: 'm9', channel: 'room', seq: 9 });
      expect(upgrades).to.deep.equal(['/hub/ws?token=seat+key']);
      expect(frames).to.deep.equal([{ type: 'subscribe', channels: ['room'], since: { room: 8 } }]);
    } finally {
      server.removeAllListeners('upgrade');
      wss.close();
    }
  });

  it('ships browser-loadable modules: only relative .js imports, no bare or node: specifiers', () => {
    const dist = path.dirname(fileURLToPath(import.meta.resolve('@keel/hub-client')));
    const files = readdirSync(dist).filter((name) => name.endsWith('.js'));
    expect(files).to.include.members(['index.js', 'hub-client.js', 'chain.js', 'canonical.js']);
    let seen = 0;
    for (const file of files) {
      const source = readFileSync(path.join(dist, file), 'utf8');
      const specifiers = [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const specifier of specifiers) expect(specifier, `${file} imports ${specifier}`).to.match(/^\.\.?\/[^'"]+\.js$/);
      seen += specifiers.length;
    }
    expect(seen).to.be.greaterThan(10);
  });
});
