/**
 * The hub embedded alone in an Express app: its routes under the host's prefix and its live socket
 * through the host server's `upgrade` event.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import WebSocket from 'ws';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { hubPlugin, type Hub } from '@keel/plugin-hub';
import { tempDir } from './helpers/paths.js';

describe('the hub embedded in an Express app', () => {
  let tmp: ReturnType<typeof tempDir>;
  let embedded: EmbeddedPlugin<Hub>;
  let server: http.Server;
  let base: string;

  before(async () => {
    tmp = tempDir();
    embedded = await embedPlugin(hubPlugin, { dataDir: tmp.dir });
    const app = express();
    app.use('/team-hub', embedded.callback());
    app.get('/host', (_req, res) => void res.json({ host: true }));
    server = http.createServer(app);
    const upgrade = embedded.upgrade('/team-hub');
    server.on('upgrade', (req, socket, head) => {
      if (!upgrade(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await embedded.stop();
    tmp.remove();
  });

  it('serves seats, posts and the live socket under the host prefix', async () => {
    const register = async (id: string) => {
      const res = await fetch(`http://${base}/team-hub/agents`, { method: 'POST', headers: { authorization: `Bearer ${embedded.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ id }) });
      expect(res.status).to.equal(200);
      return ((await res.json()) as { api_key: string }).api_key;
    };
    const ann = await register('ann');
    const ben = await register('ben');
    const ws = new WebSocket(`ws://${base}/team-hub/ws?token=${ann}`);
    const envelope = new Promise<{ body: string; sender: string }>((resolve) => ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as { type: string; envelope: { body: string; sender: string } };
      if (frame.type === 'envelope' && frame.envelope.sender === 'ben') resolve(frame.envelope);
    }));
    await new Promise((r) => ws.once('open', r));
    const posted = await fetch(`http://${base}/team-hub/channels/commons/messages`, { method: 'POST', headers: { authorization: `Bearer ${ben}`, 'content-type': 'application/json' }, body: JSON.stringify({ body: 'from the embedded hub' }) });
    expect(posted.status).to.equal(200);
    expect((await envelope).body).to.equal('from the embedded hub');
    ws.close();
    expect(await (await fetch(`http://${base}/host`)).json()).to.deep.equal({ host: true });
    expect(embedded.exports.agents.live('ann')?.id).to.equal('ann');
  });
});
