import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel, startServer, type ServerProcess } from './helpers/cli.js';
import { repoRoot, tempDir } from './helpers/paths.js';

describe('the example third-party plugin, loaded by path from a config file', () => {
  const tmp = tempDir();
  let server: ServerProcess;
  let admin: string;

  before(async () => {
    const configFile = path.join(tmp.dir, 'keel.json');
    const pluginPath = path.relative(tmp.dir, path.join(repoRoot, 'examples', 'notes-plugin'));
    writeFileSync(configFile, JSON.stringify({ plugins: [{ use: pluginPath, prefix: '/api/notes', config: { greeting: 'Hi from config', maxNoteLength: 40 } }] }));
    server = await startServer(['--config', configFile, '--port', '0', '--data-dir', path.join(tmp.dir, 'data')]);
    admin = (await import('node:fs')).readFileSync(path.join(tmp.dir, 'data', 'auth', 'admin.token'), 'utf8').trim();
  });
  after(async () => {
    await server?.stop();
    tmp.remove();
  });

  const call = async (method: string, url: string, token?: string, body?: unknown) => {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  it('serves its public route with its validated config', async () => {
    const res = await call('GET', '/api/notes');
    expect(res.status).to.equal(200);
    expect(res.body.greeting).to.equal('Hi from config');
  });

  it('stores notes in its LMDB sub-database, one plane per account', async () => {
    const bob = await call('POST', '/api/gateway/admin/users', admin, { account: 'bob' });
    const bobToken = bob.body.token.token as string;
    const created = await call('POST', '/api/notes/items', admin, { title: 'first', text: 'the cat and the hat and the bat' });
    expect(created.status).to.equal(201);
    const id = created.body.id as string;
    expect((await call('GET', `/api/notes/items/${id}`, admin)).body.title).to.equal('first');
    expect((await call('GET', '/api/notes/items', admin)).body.items).to.have.length(1);
    expect((await call('GET', `/api/notes/items/${id}`, bobToken)).status).to.equal(404);
    expect((await call('GET', '/api/notes/items', bobToken)).body.items).to.deep.equal([]);
  });

  it('computes word statistics in its worker pool', async () => {
    const created = await call('POST', '/api/notes/items', admin, { title: 'stats', text: 'to be or not to be' });
    const stats = await call('GET', `/api/notes/items/${created.body.id}/stats`, admin);
    expect(stats.status).to.equal(200);
    expect(stats.body).to.deep.include({ words: 6, thread: 'worker' });
    expect(stats.body.top_words[0]).to.deep.equal({ word: 'be', count: 2 });
  });

  it('applies its own rules and the schemas it declared', async () => {
    const tooLong = await call('POST', '/api/notes/items', admin, { title: 't', text: 'x'.repeat(41) });
    expect(tooLong.status).to.equal(400);
    expect(tooLong.body.detail.field).to.equal('body.text');
    const badId = await call('GET', '/api/notes/items/not-a-uuid', admin);
    expect(badId.status).to.equal(400);
    expect((await call('GET', '/api/notes/items')).status).to.equal(401);
  });

  it('appears in /openapi.json and /api/gateway/about', async () => {
    const doc = await call('GET', '/openapi.json');
    expect(Object.keys(doc.body.paths)).to.include.members(['/api/notes', '/api/notes/items', '/api/notes/items/{id}', '/api/notes/items/{id}/stats']);
    const about = await call('GET', '/api/gateway/about');
    const notes = about.body.plugins.find((p: { id: string }) => p.id === 'notes');
    expect(notes).to.include({ version: '0.1.0', prefix: '/api/notes' });
  });

  it('keeps its data across a restart of the server', async () => {
    const created = await call('POST', '/api/notes/items', admin, { title: 'durable', text: 'still here' });
    await server.stop();
    const configFile = path.join(tmp.dir, 'keel.json');
    server = await startServer(['--config', configFile, '--port', '0', '--data-dir', path.join(tmp.dir, 'data')]);
    const again = await call('GET', `/api/notes/items/${created.body.id}`, admin);
    expect(again.status).to.equal(200);
    expect(again.body.text).to.equal('still here');
  });

  it('contributes `keel notes count`, which reads the data dir a running server writes', async () => {
    const configFile = path.join(tmp.dir, 'keel.json');
    const dataDir = path.join(tmp.dir, 'data');
    const before = await runKeel(['notes', 'count', '--config', configFile, '--data-dir', dataDir]);
    expect(before.code, before.stderr).to.equal(0);
    const count = Number(before.stdout.trim());
    expect(count).to.be.a('number').and.be.at.least(0);
    expect((await call('POST', '/api/notes/items', admin, { title: 'counted', text: 'one more' })).status).to.equal(201);
    const after = await runKeel(['notes', 'count', '--config', configFile, '--data-dir', dataDir]);
    expect(after.stdout.trim()).to.equal(String(count + 1));
    const help = await runKeel(['--help', '--config', configFile]);
    expect(help.stdout).to.contain('keel notes count').and.contain('(plugin notes)');
    const misuse = await runKeel(['notes', 'list', '--config', configFile, '--data-dir', dataDir]);
    expect(misuse.code).to.equal(2);
    expect(misuse.stderr).to.contain("unknown notes subcommand 'list'").and.contain('usage: keel notes count');
  });
});
