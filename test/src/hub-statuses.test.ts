/**
 * The statuses and sentences the reference hub uses where Keel's differed (reference §8.1 B5), through
 * HTTP and the socket: a percent-encoded `..` in a vfs path is a 400, a hand-built `data.asks` or
 * `data.attachments` that is not valid is a 400 (never silently dropped), citing an attachment of
 * another channel is a 400, and a socket `post` frame is held to the HTTP post body schema.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { expect } from 'chai';
import { startHub, type HubHarness } from './helpers/hub.js';
import { SocketClient } from './helpers/socket-client.js';

const SEGMENTS = "fs path has empty, '.', '..' or whitespace-padded segments";

/**
 * A request whose path is sent byte for byte: WHATWG URL parsing (fetch, inject) resolves `%2E%2E`
 * as a `..` segment before sending, a raw client (curl --path-as-is, a proxy) does not.
 */
function rawCall(base: string, method: string, path: string, token: string, payload?: unknown): Promise<{ status: number; body: { detail?: unknown } }> {
  const u = new URL(base);
  const data = payload === undefined ? undefined : JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: u.hostname, port: u.port, method, path,
      headers: { authorization: `Bearer ${token}`, 'x-hub-client': 'keel-tests/1', ...(data ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as { detail?: unknown } }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

describe('hub statuses: vfs paths, structured data, attachments and socket posts', () => {
  let h: HubHarness;
  let key: Record<string, string>;
  let url: string;
  before(async () => {
    h = await startHub();
    url = (await h.kernel.listen()).url;
    key = await h.seats(['ann', 'bob', 'out']);
    await h.room('proj', key.ann, [key.bob]);
    await h.room('elsewhere', key.ann);
    await h.call('POST', '/channels/commons/leave', key.out);
  });
  after(() => h.stop());

  it("a percent-encoded '..' in a vfs path is 400 with the reference's sentence on every fs route, after the membership gate", async () => {
    expect((await h.call('PUT', '/channels/proj/fs/notes/x.txt', key.ann, { content: 'x' })).status).to.equal(200);
    for (const path of ['%2E%2E/x.txt', 'notes/%2e%2e/x.txt', '%2E%2E%2Fx.txt', 'notes/%2E/x.txt']) {
      for (const [method, payload] of [['GET', undefined], ['PUT', { content: 'x' }], ['DELETE', undefined]] as const) {
        const res = await rawCall(url, method, `/hub/channels/proj/fs/${path}`, key.ann, payload);
        expect(res.status, `${method} ${path}`).to.equal(400);
        expect(res.body.detail, `${method} ${path}`).to.equal(SEGMENTS);
      }
    }
    // The other path rules, in the reference's words.
    const cases: Array<[string, string]> = [
      ['%2Fabs', "fs path must be relative (no leading '/')"],
      ['a%5Cb', 'fs path contains illegal characters'],
      ['a%01b', 'fs path contains illegal characters'],
      ['x'.repeat(513), 'fs path must be 1..512 chars'],
    ];
    for (const [path, detail] of cases) {
      const res = await h.call('PUT', `/channels/proj/fs/${path}`, key.ann, { content: 'x' });
      expect(res.status, path).to.equal(400);
      expect(res.body.detail, path).to.equal(detail);
    }
    // Membership first: an outsider learns nothing from the path rule.
    const outsider = await rawCall(url, 'GET', '/hub/channels/proj/fs/%2E%2E/x.txt', key.out);
    expect(outsider.status).to.equal(403);
    expect(outsider.body.detail).to.equal("'out' is not a member of 'proj'");
  });

  it('a hand-built data.asks or data.attachments that is not valid is refused with 400, not dropped', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ body: 'x', data: { asks: 'no' } }, 'asks[] are only allowed on open/blocked messages'],
      [{ body: 'x', status: 'open', data: { asks: 'no' } }, 'asks must be a list'],
      [{ body: 'x', status: 'open', data: { asks: ['plain text'] } }, 'each ask must be an object with an id'],
      [{ body: 'x', status: 'open', data: { asks: [{ id: 'a', text: 'one?' }, { id: 'a', text: 'two?' }] } }, 'ask ids must be unique and non-empty'],
      [{ body: 'x', status: 'open', data: { asks: Array.from({ length: 21 }, (_, i) => ({ id: `q${i}`, text: 'why?' })) } }, 'too many asks (max 20)'],
      [{ body: 'x', data: { attachments: 'file.pdf' } }, 'attachments must be a list of {id, filename?} refs'],
      [{ body: 'x', data: { attachments: ['abc'] } }, "each attachment ref needs an id (the blob's sha256 from the upload)"],
      [{ body: 'x', data: { attachments: [{ filename: 'a.pdf' }] } }, "each attachment ref needs an id (the blob's sha256 from the upload)"],
      [{ body: 'x', data: { attachments: [{ id: 'nope' }] } }, 'attachment id must be the sha256 hex the upload returned'],
      [{ body: 'x', data: { attachments: Array.from({ length: 9 }, () => ({ id: 'f'.repeat(64) })) } }, 'a message carries at most 8 attachments'],
    ];
    for (const [payload, detail] of cases) {
      const res = await h.call('POST', '/channels/proj/messages', key.ann, payload);
      expect(res.status, JSON.stringify(payload).slice(0, 80)).to.equal(400);
      expect(res.body.detail).to.equal(detail);
    }
    // Valid hand-built asks are kept, as before.
    const ok = await h.call('POST', '/channels/proj/messages', key.ann, { body: 'q', status: 'open', data: { asks: [{ id: 'hb1', text: 'ok?' }] } });
    expect(ok.status).to.equal(200);
    expect(ok.body.data.asks).to.deep.equal([{ id: 'hb1', text: 'ok?' }]);
  });

  it('typed asks on a post that is not open or blocked, and the same attachment cited twice, are 400 with the reference sentences', async () => {
    // bob posts here: ann's posting budget (20 at once) belongs to the other tests.
    const parent = (await h.call('POST', '/channels/proj/messages', key.bob, { body: 'parent' })).body.id as string;
    for (const status of ['fyi', 'reply', 'resolved']) {
      const res = await h.call('POST', '/channels/proj/messages', key.bob, { body: 'x', status, asks: [{ id: 'q1', text: 'why?' }], ...(status === 'reply' ? { reply_to: parent } : {}) });
      expect(res.status, status).to.equal(400);
      expect(res.body.detail, status).to.equal('asks[] are only allowed on open/blocked messages');
    }
    const bytes = Buffer.from('cited twice');
    const id = createHash('sha256').update(bytes).digest('hex');
    expect((await h.call('POST', '/channels/proj/attachments?filename=t.txt', key.bob, bytes, { 'content-type': 'text/plain' })).status).to.equal(200);
    const before = (await h.call('GET', '/channels/proj/messages?limit=500', key.bob)).body.length;
    for (const payload of [{ body: 'x', attachments: [{ id }, { id }] }, { body: 'x', attachments: [{ id }], data: { attachments: [{ id: ` ${id.toUpperCase()} ` }] } }]) {
      const res = await h.call('POST', '/channels/proj/messages', key.bob, payload);
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.equal(`duplicate attachment ref ${id.slice(0, 12)}…`);
    }
    // Refused posts leave nothing behind; citing it once is fine.
    expect((await h.call('GET', '/channels/proj/messages?limit=500', key.bob)).body.length).to.equal(before);
    expect((await h.call('POST', '/channels/proj/messages', key.bob, { body: 'x', attachments: [{ id }] })).status).to.equal(200);
  });

  it("citing an attachment uploaded to another channel is 400 naming the channel; the id is trimmed and lower-cased first", async () => {
    const bytes = Buffer.from('only elsewhere');
    const id = createHash('sha256').update(bytes).digest('hex');
    const up = await h.call('POST', '/channels/elsewhere/attachments?filename=e.txt', key.ann, bytes, { 'content-type': 'text/plain' });
    expect(up.body.id).to.equal(id);
    for (const payload of [{ body: 'x', attachments: [{ id }] }, { body: 'x', data: { attachments: [{ id: ` ${id.toUpperCase()} ` }] } }]) {
      const res = await h.call('POST', '/channels/proj/messages', key.ann, payload);
      expect(res.status).to.equal(400);
      expect(res.body.detail).to.equal(`attachment ${id.slice(0, 12)}… is not uploaded to 'proj' — POST the bytes to /channels/{channel}/attachments first`);
    }
    const there = await h.call('POST', '/channels/elsewhere/messages', key.ann, { body: 'x', data: { attachments: [{ id: ` ${id.toUpperCase()} ` }] } });
    expect(there.status).to.equal(200);
    expect(there.body.data.attachments[0].id).to.equal(id);
  });

  it('a socket post frame is held to the HTTP post body schema: a numeric title is refused cleanly, nothing is stored', async () => {
    const http = await h.call('POST', '/channels/proj/messages', key.ann, { body: 'x', title: 42 });
    expect(http.status).to.equal(422);
    const socket = await SocketClient.open(`${url.replace(/^http/, 'ws')}/hub/ws?token=${key.ann}`);
    try {
      const before = (await h.call('GET', '/channels/proj/messages?limit=1000', key.ann)).body.length;
      socket.send({ type: 'post', channel: 'proj', body: 'numeric title', title: 42 });
      socket.send({ type: 'post', channel: 'proj', body: 'bad asks', status: 'open', asks: 'no' });
      await socket.until(() => socket.ofType('error').length >= 2, 'two error frames');
      const [title, asks] = socket.ofType('error');
      expect(title).to.include({ status: 422 });
      expect(String(title.detail)).to.match(/title/);
      expect(asks).to.include({ status: 422 });
      expect(String(asks.detail)).to.match(/asks/);
      // The socket stays usable, and a good post goes through.
      socket.send({ type: 'post', channel: 'proj', body: 'fine', title: 'ok' });
      await socket.until(() => socket.ofType('posted').length === 1, 'the posted frame');
      const after = (await h.call('GET', '/channels/proj/messages?limit=1000', key.ann)).body as Array<{ body: string }>;
      expect(after.length).to.equal(before + 1);
      expect(after.map((m) => m.body)).to.not.include.members(['numeric title', 'bad asks']);
    } finally {
      socket.ws.close();
    }
  });
});
