import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
import Koa from 'koa';
import { embedPlugin, type EmbeddedPlugin } from '@keel/kernel';
import { notesPlugin } from '@keel-examples/notes-plugin';
import type { NotesStore } from '@keel-examples/notes-plugin';
import { tempDir } from './helpers/paths.js';

async function serve(handler: http.RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

async function exercise(base: string, token: string): Promise<void> {
  const greeting = await fetch(`${base}/`);
  expect(greeting.status).to.equal(200);
  expect(((await greeting.json()) as { greeting: string }).greeting).to.equal('embedded');
  const created = await fetch(`${base}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'embedded', text: 'one two two' }),
  });
  expect(created.status).to.equal(201);
  const { id } = (await created.json()) as { id: string };
  const stats = await fetch(`${base}/items/${id}/stats`, { headers: { authorization: `Bearer ${token}` } });
  expect(await stats.json()).to.deep.include({ words: 3, thread: 'worker' });
  const invalid = await fetch(`${base}/items`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  expect(invalid.status).to.equal(400);
  expect((await fetch(`${base}/items`)).status).to.equal(401);
}

describe('embedPlugin(): one plugin inside another host', () => {
  let tmp: ReturnType<typeof tempDir>;
  let embedded: EmbeddedPlugin<NotesStore>;
  beforeEach(async () => {
    tmp = tempDir();
    embedded = await embedPlugin(notesPlugin, { dataDir: tmp.dir, config: { greeting: 'embedded' } });
  });
  afterEach(async () => {
    await embedded.stop();
    tmp.remove();
  });

  it('mounts in a plain Koa app under a prefix, next to the host routes', async () => {
    const app = new Koa();
    app.use(embedded.middleware('/notes'));
    app.use((ctx) => {
      ctx.body = { host: 'koa', path: ctx.path };
    });
    const server = await serve(app.callback());
    try {
      await exercise(`${server.url}/notes`, embedded.adminToken);
      const hostRoute = await fetch(`${server.url}/other`);
      expect(await hostRoute.json()).to.deep.equal({ host: 'koa', path: '/other' });
      // Only the plugin's routes are mounted: no kernel routes leak into the host.
      expect((await fetch(`${server.url}/notes/api/health`)).status).to.equal(404);
    } finally {
      await server.close();
    }
  });

  it('mounts in an Express app with app.use(prefix, callback())', async () => {
    const app = express();
    app.use('/notes', embedded.callback());
    app.get('/other', (_req, res) => {
      res.json({ host: 'express' });
    });
    const server = await serve(app);
    try {
      await exercise(`${server.url}/notes`, embedded.adminToken);
      expect(await (await fetch(`${server.url}/other`)).json()).to.deep.equal({ host: 'express' });
    } finally {
      await server.close();
    }
  });

  it('hands the plugin exports to the host', async () => {
    const note = await embedded.exports.add('host-account', 'from host', 'written directly');
    expect(embedded.exports.get('host-account', note.id)?.title).to.equal('from host');
  });
});
