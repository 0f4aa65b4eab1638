import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel, startServer } from './helpers/cli.js';
import { fixturesDir, repoRoot, tempDir } from './helpers/paths.js';

describe('the keel CLI', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  it('keel --help lists every command and the environment variables', async () => {
    const res = await runKeel(['--help']);
    expect(res.code).to.equal(0);
    for (const text of ['keel serve', '--config', '--plugins', '--port', '--host', '--data-dir', 'keel plugins', 'keel token create --account', 'KEEL_CONFIG', 'KEEL_PORT', 'KEEL_HOST', 'KEEL_DATA_DIR']) {
      expect(res.stdout).to.contain(text);
    }
  });

  it('refuses an unknown command or flag with exit code 2 and a pointer to --help', async () => {
    const unknown = await runKeel(['frobnicate']);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.contain('--help');
    const badFlag = await runKeel(['serve', '--prot', '80']);
    expect(badFlag.code).to.equal(2);
    expect(badFlag.stderr).to.contain('--prot');
    const badPort = await runKeel(['serve', '--port', 'x']);
    expect(badPort.code).to.equal(2);
    const noPort = await runKeel(['serve', '--port']);
    expect(noPort.code).to.equal(2);
    expect(noPort.stderr).to.contain('--port needs a value');
  });

  it('keel serve honours KEEL_PORT, KEEL_HOST and KEEL_DATA_DIR, and --no-runner', async () => {
    const dataDir = path.join(tmp.dir, 'env-data');
    const server = await startServer(['--no-runner'], { KEEL_PORT: '0', KEEL_HOST: '127.0.0.1', KEEL_DATA_DIR: dataDir });
    try {
      expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(server.output()).to.contain(path.join(dataDir, 'auth', 'admin.token'));
      const health = (await (await fetch(`${server.url}/api/health`)).json()) as { runner: string };
      expect(health.runner).to.equal('disabled');
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });

  it('KEEL_CONFIG names the config file when --config is not given', async () => {
    const file = path.join(tmp.dir, 'from-env.json');
    writeFileSync(file, JSON.stringify({ server: { port: 0 }, plugins: [{ use: path.join(fixturesDir, 'kernel-probe-plugin.js') }] }));
    const server = await startServer(['--data-dir', tmp.dir], { KEEL_CONFIG: file });
    try {
      const about = (await (await fetch(`${server.url}/api/gateway/about`)).json()) as { plugins: Array<{ id: string }> };
      expect(about.plugins.map((p) => p.id)).to.deep.equal(['core', 'probe']);
    } finally {
      await server.stop();
    }
  });

  it('KEEL_ADMIN_TOKEN replaces the bootstrap token file', async () => {
    const token = 'keel_env_admin_token_0123456789';
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir], { KEEL_ADMIN_TOKEN: token });
    try {
      const me = await fetch(`${server.url}/api/gateway/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).to.equal(200);
      expect(((await me.json()) as { account: string }).account).to.equal('admin');
    } finally {
      await server.stop();
    }
  });

  it('keel token create prints a token that a running server accepts', async () => {
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir]);
    try {
      const created = await runKeel(['token', 'create', '--account', 'erin', '--data-dir', tmp.dir]);
      expect(created.code, created.stderr).to.equal(0);
      const token = created.stdout.trim();
      expect(token).to.match(/^keel_\S+$/);
      const me = await fetch(`${server.url}/api/gateway/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(me.status).to.equal(200);
      expect(await me.json()).to.deep.include({ account: 'erin', roles: [] });
      const again = await runKeel(['token', 'create', '--account', 'erin', '--data-dir', tmp.dir]);
      expect(again.stdout.trim()).to.not.equal(token);
      const missing = await runKeel(['token', 'create', '--data-dir', tmp.dir]);
      expect(missing.code).to.equal(2);
      expect(missing.stderr).to.contain('--account');
    } finally {
      await server.stop();
    }
  });

  it('keel plugins lists installed plugins and the ones the config loads', async () => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ plugins: [{ use: path.join(repoRoot, 'examples', 'notes-plugin'), prefix: '/n' }, { use: '@keel/plugin-absent', enabled: false }] }));
    const res = await runKeel(['plugins', '--config', file]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.contain('Installed plugins').and.contain('@keel-examples/notes-plugin');
    expect(res.stdout).to.contain(`Loaded by ${file}`).and.contain('prefix /n').and.contain('@keel/plugin-absent').and.contain('disabled');
  });

  it('keel serve --plugins picks the plugin set by path or name', async () => {
    const probe = path.relative(repoRoot, path.join(fixturesDir, 'kernel-probe-plugin.js'));
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir, '--plugins', `./${probe}`]);
    try {
      const about = (await (await fetch(`${server.url}/api/gateway/about`)).json()) as { plugins: Array<{ id: string }> };
      expect(about.plugins.map((p) => p.id)).to.deep.equal(['core', 'probe']);
    } finally {
      await server.stop();
    }
    const missing = await runKeel(['serve', '--port', '0', '--data-dir', tmp.dir, '--plugins', 'nonesuch']);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('@keel/plugin-nonesuch');
  });

  it('stops gracefully on SIGTERM: an in-flight request still completes, plugins stop, exit code 0', async () => {
    const probe = path.join(fixturesDir, 'kernel-probe-plugin.js');
    const server = await startServer(['--port', '0', '--data-dir', tmp.dir, '--plugins', probe]);
    const token = (await import('node:fs')).readFileSync(path.join(tmp.dir, 'auth', 'admin.token'), 'utf8').trim();
    const inFlight = fetch(`${server.url}/api/gateway/probe/slow?ms=800`, { headers: { authorization: `Bearer ${token}` } });
    await server.waitFor(/probe: slow request started/);
    const exit = server.stop('SIGTERM');
    const res = await inFlight;
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ slept_ms: 800 });
    expect(await exit).to.equal(0);
    expect(server.output()).to.contain('kernel stopped');
    // After stop the port is closed.
    const after = await fetch(`${server.url}/api/health`).then(() => 'open', () => 'closed');
    expect(after).to.equal('closed');
  });
});
