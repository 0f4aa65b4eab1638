/**
 * The kernel's general extension points (issue 10 item 2): health fields a plugin adds to
 * `/api/health`, mounts whose unmatched paths need a token (401 before 404), flags a plugin adds to
 * `keel serve`, and a command serving the config without a listener until a signal.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { definePlugin } from '@keel/plugin-sdk';
import { createTestKernel, type InjectResponse, type TestKernel } from '@keel/plugin-sdk/testing';
import { extensionPointsPlugin, greetingClashPlugin } from './fixtures/extension-points-plugin.js';
import { runKeel, spawnKeel, startServer } from './helpers/cli.js';
import { fixturesDir, tempDir } from './helpers/paths.js';

const BAD = 'not-a-real-token-0123456789';

function expect401(res: InjectResponse, what: string): void {
  expect(res.statusCode, `${what}: ${res.body}`).to.equal(401);
  expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code, what).to.be.oneOf(['missing_token', 'invalid_token']);
}

describe('health fields plugins add to GET /api/health', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [extensionPointsPlugin] });
  });
  after(() => kernel?.stop());

  it('serves each field next to the kernel\'s, read per request', async () => {
    const first = (await kernel.inject({ url: '/api/health' })).json<Record<string, unknown>>();
    expect(Object.keys(first)).to.deep.equal(['status', 'greeting', 'loud', 'reads', 'watchdog']);
    expect(first).to.include({ status: 'ok', greeting: 'hello', loud: true });
    const second = (await kernel.inject({ url: '/api/health' })).json<{ reads: number }>();
    expect(second.reads).to.equal((first.reads as number) + 1);
  });

  it('refuses to boot when a plugin adds a field the kernel reports, or one another plugin adds', async () => {
    const own = await createTestKernel({ plugins: [{ plugin: extensionPointsPlugin, config: { extraHealth: ['watchdog'] } }] }).then((k) => k.stop().then(() => null), (err: Error) => err);
    expect(own?.message).to.contain("plugin 'extension-points' adds the health field 'watchdog', which the kernel reports itself");
    const clash = await createTestKernel({ plugins: [extensionPointsPlugin, greetingClashPlugin] }).then((k) => k.stop().then(() => null), (err: Error) => err);
    expect(clash?.message).to.contain("plugin 'greeting-clash' adds the health field 'greeting', which plugin 'extension-points' adds too");
  });
});

describe('mounts that guard their unmatched paths (guardUnmatched)', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [{ plugin: extensionPointsPlugin, mounts: { hidden: '/api/moved-hidden' } }], config: { server: { logLevel: 'silent' } } });
  });
  after(() => kernel?.stop());

  it('answers 401 without a valid token under a guarded prefix, however the path is spelled, and 404 once signed in', async () => {
    const spellings = [
      '/api/private-things/nope', '/api/private-things', '//api/private-things/nope', '/api/x/../private-things/nope',
      '/api/private-things%2Fnope', '/API/Private-Things/nope', '/api/moved-hidden/nope', '/api/./moved-hidden',
    ];
    for (const url of spellings) {
      expect401(await kernel.inject({ url }), url);
      expect401(await kernel.inject({ url, token: BAD }), `${url} with a bad token`);
    }
    expect((await kernel.inject({ url: '/api/private-things/nope', token: kernel.adminToken })).statusCode).to.equal(404);
    expect((await kernel.inject({ url: '/api/moved-hidden/nope', token: kernel.adminToken })).statusCode).to.equal(404);
    // A public route under a guarded prefix stays public.
    expect((await kernel.inject({ url: '/api/private-things/known' })).statusCode).to.equal(200);
  });

  it('leaves other prefixes as they were: 404 on an unguarded mount, and on the prefix a guarded mount was moved from', async () => {
    expect((await kernel.inject({ url: '/api/open-things/nope' })).statusCode).to.equal(404);
    expect((await kernel.inject({ url: '/api/hidden/nope' })).statusCode).to.equal(404);
    expect((await kernel.inject({ url: '/api/open-things/known' })).statusCode).to.equal(200);
  });
});

describe('flags plugins add to keel serve, and keel <command> serving headless', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  const configOf = (plugins: unknown[]) => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins }));
    return file;
  };
  const fixture = path.join(fixturesDir, 'extension-points-plugin.js');

  it('sets the plugin\'s config from its flags (a string, a boolean\'s --no- form), and keel --help lists them', async () => {
    const config = configOf([{ use: fixture, config: { greeting: 'from the file' } }]);
    const server = await startServer(['--config', config, '--data-dir', path.join(tmp.dir, 'data'), '--greeting', 'from a flag', '--no-loud']);
    try {
      const health = (await (await fetch(`${server.url}/api/health`)).json()) as Record<string, unknown>;
      expect(health).to.include({ greeting: 'from a flag', loud: false });
    } finally {
      expect(await server.stop()).to.equal(0);
    }
    const help = await runKeel(['--help', '--config', config]);
    expect(help.stdout).to.contain('--greeting <value>').and.contain('--[no-]loud').and.contain('(plugin extension-points, config loud)');
  });

  it('refuses a plugin whose serve flags take a kernel flag\'s name, a no- name or lack their config key', async () => {
    const bad = definePlugin({
      id: 'bad-flags',
      version: '0.1.0',
      sdk: '^1.0.0',
      serveFlags: { port: { type: 'string', config: 'port', summary: 'x' }, 'no-sync': { type: 'boolean', config: 'sync', summary: 'x' }, sync: { type: 'boolean', config: '', summary: 'x' } },
      setup: () => ({}),
    });
    const err = await createTestKernel({ plugins: [bad] }).then((k) => k.stop().then(() => null), (e: Error) => e);
    expect(err?.message).to.contain("plugin 'bad-flags' declares the serve flag '--port', which is the kernel's own")
      .and.contain("plugin 'bad-flags' serve flag 'no-sync' must be kebab-case (a-z, 0-9, dashes) and not start with 'no-'")
      .and.contain("plugin 'bad-flags' serve flag 'sync' needs a type ('boolean' or 'string'), the config key it sets and a summary");
  });

  it('refuses a flag no loaded plugin declares with exit 2, naming the flags the plugins add', async () => {
    const res = await runKeel(['serve', '--config', configOf([{ use: fixture }]), '--data-dir', path.join(tmp.dir, 'data'), '--no-runner']);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.contain("'--no-runner'").and.contain('the config\'s plugins add: --greeting, --loud');
  });

  it('ctx.serve boots the config without a listener as the named process until SIGTERM, then exits 0', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const idle = spawnKeel(['idle', '--config', configOf([{ use: fixture }]), '--data-dir', dataDir]);
    try {
      await idle.waitFor(/Keel idler started \(data .+\)/);
      const hostFile = path.join(dataDir, 'plugins', 'extension-points', 'host.json');
      expect(JSON.parse(readFileSync(hostFile, 'utf8'))).to.deep.equal({ mode: 'headless', process: 'idler' });
      expect(idle.child.exitCode, 'still serving').to.equal(null);
    } finally {
      expect(await idle.stop('SIGTERM'), idle.output()).to.equal(0);
    }
    expect(idle.stdout()).to.contain('Keel idler stopping (SIGTERM)');
  });
});
