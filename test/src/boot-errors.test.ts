import { mkdirSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { runKeel, startServer } from './helpers/cli.js';
import { fixturesDir, tempDir } from './helpers/paths.js';
import { clashPlugin, cycleA, cycleB, futureSdkPlugin, greeterPlugin, lifecycle, slowSetupPlugin, welcomePlugin } from './fixtures/dependency-plugins.js';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';

async function bootError(options: Parameters<typeof createTestKernel>[0]): Promise<string> {
  try {
    const kernel = await createTestKernel(options);
    await kernel.stop();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected the kernel to refuse to boot');
}

describe('boot: config, plugin loading and ordering errors', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  const serveWith = async (config: unknown | string) => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config));
    return { file, ...(await runKeel(['serve', '--config', file, '--data-dir', path.join(tmp.dir, 'data')])) };
  };

  it('names the file when the config is not valid JSON', async () => {
    const { code, stderr, file } = await serveWith('{ "server": { "port": 80, } }');
    expect(code).to.equal(1);
    expect(stderr).to.contain(file).and.contain('not valid JSON');
  });

  it('reports every invalid key of the config at once, each named', async () => {
    const { code, stderr, file } = await serveWith({ server: { port: 'eighty', colour: 'blue', watchdog: { limitS: -1 } }, plugins: [{ prefix: 'x' }] });
    expect(code).to.equal(1);
    for (const key of ['server.port', 'server.colour', 'server.watchdog.limitS', 'plugins[0].use', 'plugins[0].prefix']) {
      expect(stderr).to.contain(`${file}: ${key}`);
    }
  });

  it('names a missing config file and how to pass another', async () => {
    const res = await runKeel(['serve', '--config', path.join(tmp.dir, 'nope.json'), '--port', '0']);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.contain('nope.json').and.contain('--config');
  });

  it('names an unknown plugin package and a plugin path that does not exist', async () => {
    const { code, stderr, file } = await serveWith({ plugins: [{ use: '@keel/plugin-does-not-exist' }, { use: './missing-plugin' }] });
    expect(code).to.equal(1);
    expect(stderr).to.contain(`${file}: plugins[0].use: plugin package '@keel/plugin-does-not-exist' is not installed`);
    expect(stderr).to.contain('plugins[1]').and.contain('missing-plugin').and.contain('does not exist');
  });

  it("names the plugin and the key when a plugin's config is invalid, all at once", async () => {
    const notes = path.resolve(fixturesDir, '../../../examples/notes-plugin');
    const { code, stderr, file } = await serveWith({ plugins: [{ use: notes, config: { maxNoteLength: 0, greeting: 5, colour: 'red' } }] });
    expect(code).to.equal(1);
    expect(stderr).to.contain(`${file}: plugins[0].config.maxNoteLength`);
    expect(stderr).to.contain(`${file}: plugins[0].config.greeting must be string (plugin 'notes')`);
    expect(stderr).to.contain('plugins[0].config.colour is not an allowed field');
  });

  it("reports a missing plugin package together with the other plugins' config errors, naming the file and keys", async () => {
    const notes = path.resolve(fixturesDir, '../../../examples/notes-plugin');
    const { code, stderr, file } = await serveWith({ plugins: [{ use: '@keel/plugin-not-installed' }, { use: notes, config: { greeting: 5 } }] });
    expect(code).to.equal(1);
    expect(stderr).to.contain(`${file}: plugins[0].use: plugin package '@keel/plugin-not-installed' is not installed`);
    expect(stderr).to.contain(`${file}: plugins[1].config.greeting must be string (plugin 'notes')`);
  });

  it('refuses a module that does not export a plugin', async () => {
    const file = path.join(tmp.dir, 'not-a-plugin.mjs');
    writeFileSync(file, 'export const hello = 1;\n');
    const { code, stderr } = await serveWith({ plugins: [{ use: file }] });
    expect(code).to.equal(1);
    expect(stderr).to.contain('does not export a plugin made with definePlugin()');
  });

  it('loads a plugin by a path relative to the config file', async () => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ plugins: [{ use: path.relative(tmp.dir, path.join(fixturesDir, 'kernel-probe-plugin.js')) }] }));
    const server = await startServer(['--config', file, '--data-dir', path.join(tmp.dir, 'data'), '--port', '0']);
    try {
      const about = (await (await fetch(`${server.url}/api/gateway/about`)).json()) as { plugins: Array<{ id: string }> };
      expect(about.plugins.map((p) => p.id)).to.include('probe');
    } finally {
      await server.stop();
    }
  });

  it('names a token no loaded plugin provides', async () => {
    const message = await bootError({ plugins: [welcomePlugin] });
    expect(message).to.contain("plugin 'welcome' needs token 'test.greeter' (deps.greeter), which no loaded plugin provides");
  });

  it('sets up and starts providers before the plugins that need them, and stops in reverse', async () => {
    lifecycle.length = 0;
    const kernel = await createTestKernel({ plugins: [welcomePlugin, greeterPlugin] });
    try {
      const res = await kernel.inject({ url: '/welcome' });
      expect(res.json()).to.deep.equal({ text: 'hello keel' });
    } finally {
      await kernel.stop();
    }
    expect(lifecycle).to.deep.equal(['setup greeter', 'setup welcome', 'start greeter', 'start welcome', 'stop welcome', 'stop greeter']);
  });

  it('names the plugins of a dependency cycle', async () => {
    const message = await bootError({ plugins: [cycleA, cycleB] });
    expect(message).to.match(/dependency cycle: cycle-a → cycle-b → cycle-a|dependency cycle: cycle-b → cycle-a → cycle-b/);
  });

  it('names both plugins when two claim the same method and path', async () => {
    const message = await bootError({ plugins: [clashPlugin] });
    expect(message).to.contain("route GET /api/health is declared by plugins 'core' and 'clasher'");
  });

  it('names a plugin loaded twice and a plugin built for another SDK major', async () => {
    expect(await bootError({ plugins: [probePlugin, probePlugin] })).to.contain("plugin id 'probe' is loaded twice");
    expect(await bootError({ plugins: [futureSdkPlugin] })).to.contain("plugin 'future' needs @keel/plugin-sdk ^9.0.0");
  });

  it('names a plugin whose setup overruns the deadline, and leaves nothing half-started', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const message = await bootError({ plugins: [probePlugin, slowSetupPlugin], dataDir, config: { server: { setupTimeoutMs: 200 } } });
    expect(message).to.contain("plugin 'slow-setup' did not finish setup within 200 ms");
    // LMDB was closed and no port is held: the same data dir boots again at once.
    const kernel = await createTestKernel({ plugins: [probePlugin], dataDir });
    try {
      expect((await kernel.inject({ url: '/api/health' })).statusCode).to.equal(200);
      expect(readdirSync(path.join(dataDir, 'db'))).to.have.length.greaterThan(0);
    } finally {
      await kernel.stop();
    }
  });

  /** The lines a refusal printed that are not the JSON log: exactly one sentence, and no stack frame. */
  const refusalLines = (stderr: string) => {
    expect(stderr).to.not.match(/^\s+at /m);
    return stderr.split('\n').filter((line) => line && !line.startsWith('{'));
  };

  it('refuses a port already in use in one sentence, without a stack, exit 1', async () => {
    const holder = net.createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as net.AddressInfo).port)));
    try {
      const res = await runKeel(['serve', '--port', String(port), '--host', '127.0.0.1', '--data-dir', path.join(tmp.dir, 'data'), '--plugins', '@keel/plugin-ledger']);
      expect(res.code).to.equal(1);
      expect(refusalLines(res.stderr)).to.deep.equal([`keel: cannot start: Port ${port} on 127.0.0.1 is already in use by another process; stop it, or choose another port with --port (or server.port in the config).`]);
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });

  it('refuses a host address this machine does not have in one sentence, exit 1', async () => {
    // 192.0.2.1 is a documentation address (TEST-NET-1): binding to it fails locally, nothing is sent.
    const res = await runKeel(['serve', '--port', '0', '--host', '192.0.2.1', '--data-dir', path.join(tmp.dir, 'data'), '--plugins', '@keel/plugin-ledger']);
    expect(res.code).to.equal(1);
    expect(refusalLines(res.stderr)).to.deep.equal(['keel: cannot start: Cannot listen on 192.0.2.1: no network interface of this machine has that address; use --host 127.0.0.1 or another local address.']);
  });

  it('refuses a KEEL_ADMIN_TOKEN shorter than 16 characters in one sentence that does not echo it, exit 1', async () => {
    const res = await runKeel(['serve', '--port', '0', '--data-dir', path.join(tmp.dir, 'data'), '--plugins', '@keel/plugin-ledger'], { KEEL_ADMIN_TOKEN: 'short-secret' });
    expect(res.code).to.equal(1);
    expect(refusalLines(res.stderr)).to.deep.equal(['keel: cannot start: KEEL_ADMIN_TOKEN must be at least 16 characters long (it has 12); set a longer random secret.']);
    expect(res.stdout + res.stderr).to.not.contain('short-secret');
  });

  it('refuses a data dir it cannot make (a file in the way) in one sentence naming it, exit 1', async () => {
    const file = path.join(tmp.dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const res = await runKeel(['serve', '--port', '0', '--data-dir', path.join(file, 'data'), '--plugins', '@keel/plugin-ledger']);
    expect(res.code).to.equal(1);
    expect(refusalLines(res.stderr)).to.deep.equal([`keel: cannot start: Cannot use the data directory ${path.join(file, 'data')}: a part of the path is a file, not a directory; choose another with --data-dir (or KEEL_DATA_DIR, server.dataDir).`]);
  });

  it('refuses a data dir under /proc in one sentence, exit 1, instead of spinning (recursive mkdir loops on /proc)', async function () {
    if (process.platform !== 'linux') this.skip();
    const res = await runKeel(['serve', '--port', '0', '--data-dir', '/proc/keel-data/x', '--plugins', '@keel/plugin-ledger']);
    expect(res.code).to.equal(1);
    expect(refusalLines(res.stderr)).to.deep.equal(['keel: cannot start: Cannot use the data directory /proc/keel-data/x: this location does not take new directories; choose another with --data-dir (or KEEL_DATA_DIR, server.dataDir).']);
  });

  it('keel runner exits 1 with one sentence when another runner holds the lock of the data dir', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    // The lock names a live process (this test's own): a runner is up on this data dir.
    writeFileSync(path.join(dataDir, 'gateway_runner.lock'), String(process.pid));
    const res = await runKeel(['runner', '--data-dir', dataDir, '--plugins', '@keel/plugin-inference,@keel/plugin-ledger,@keel/plugin-workspaces,@keel/plugin-gateway-runs']);
    expect(res.code).to.equal(1);
    expect(refusalLines(res.stderr)).to.deep.equal([`keel: cannot start: Another runner (pid ${process.pid}) holds ${path.join(dataDir, 'gateway_runner.lock')}: the runs of this data directory are executed there; stop that runner first, or point this one at another --data-dir.`]);
    expect(res.stdout).to.not.contain('Keel runner started');
    expect(readFileSync(path.join(dataDir, 'gateway_runner.lock'), 'utf8')).to.equal(String(process.pid));
  });

  it('does not listen when boot fails', async () => {
    const port = await freePort();
    const { code } = await serveWith({ server: { port }, plugins: [{ use: '@keel/plugin-does-not-exist' }] });
    expect(code).to.equal(1);
    expect(await canConnect(port)).to.equal(false);
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
