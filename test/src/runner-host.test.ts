/**
 * What gateway-runs adds to the host for its runner (issue 10 item 2; seed 000 §2.1): the `runner`
 * field of `/api/health`, admin-only `GET /api/gateway/host/runner` with the watchdog's last hang,
 * `keel runner` and `keel serve --no-runner`, each present only when the config loads gateway-runs.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { probePlugin } from './fixtures/kernel-probe-plugin.js';
import { runKeel } from './helpers/cli.js';
import { until } from './helpers/gateway-runs.js';
import { fixturesDir, tempDir } from './helpers/paths.js';

const runsPlugins = (runner?: boolean) => [inferencePlugin, ledgerPlugin, workspacesPlugin, runner === undefined ? gatewayRunsPlugin : { plugin: gatewayRunsPlugin, config: { runner } }];

type Hang = { at: string; process: string; blocked_s: number; reason: string; top_frame: string | null; dump_path: string | null; file: string | null; line: number | null };

describe('GET /api/health with gateway-runs: the runner field', () => {
  it('keeps the body clients know: {status, runner, watchdog}, runner enabled by default and disabled with runner: false', async () => {
    for (const [runner, shown] of [[undefined, 'enabled'], [true, 'enabled'], [false, 'disabled']] as const) {
      const kernel = await createTestKernel({ plugins: runsPlugins(runner) });
      try {
        const body = (await kernel.inject({ url: '/api/health' })).json<Record<string, unknown>>();
        expect(Object.keys(body)).to.deep.equal(['status', 'runner', 'watchdog']);
        expect(body.runner, `runner: ${String(runner)}`).to.equal(shown);
      } finally {
        await kernel.stop();
      }
    }
  });
});

describe('GET /api/gateway/host/runner', () => {
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ plugins: [...runsPlugins(), probePlugin], config: { server: { logLevel: 'error', watchdog: { enabled: true, limitS: 0.5 } } } });
  });
  after(() => kernel?.stop());

  it('is for admins: 401 without a token, 403 for another account', async () => {
    expect((await kernel.inject({ url: '/api/gateway/host/runner' })).statusCode).to.equal(401);
    const bob = (await kernel.inject({ method: 'POST', url: '/api/gateway/admin/users', token: kernel.adminToken, payload: { account: 'bob' } })).json<{ token: { token: string } }>();
    const res = await kernel.inject({ url: '/api/gateway/host/runner', token: bob.token.token });
    expect(res.statusCode).to.equal(403);
    expect(res.json<{ detail: string }>().detail).to.match(/admin/);
  });

  it('records a hang of this process with its top frame while the loop is blocked', async function () {
    this.timeout(90_000);
    const before = await kernel.inject({ url: '/api/gateway/host/runner', token: kernel.adminToken });
    expect(before.json()).to.deep.equal({ last_hang: null });
    // Blocked until the watchdog has read the stack and dumped it, however busy the machine is.
    await kernel.inject({ url: '/api/gateway/probe/block?ms=2000&until_dump=true' });
    const lastHang = async () => (await kernel.inject({ url: '/api/gateway/host/runner', token: kernel.adminToken })).json<{ last_hang: Hang | null }>().last_hang;
    const hang = (await until(lastHang, (h) => h !== null, 30_000))!;
    expect(hang.blocked_s).to.be.at.least(0.5);
    expect(hang.reason).to.contain('blocked');
    expect(hang.process).to.equal('server');
    expect(hang.dump_path).to.be.a('string');
    expect(hang.file).to.contain('kernel-probe-plugin.js');
    // Any frame of the probe's blocking loop: it also polls for the dump (dumpsIn) while it blocks.
    expect(hang.top_frame).to.match(/blockFor|probeBlockingHandler|dumpsIn/);
    expect(hang.line).to.be.a('number');
    const health = await kernel.inject({ url: '/api/health' });
    expect(health.json<{ watchdog: { limit_s: number } }>().watchdog.limit_s).to.equal(0.5);
  });
});

describe('keel runner and keel serve --no-runner come from gateway-runs', function () {
  this.timeout(120_000);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.remove());

  const configOf = (plugins: string[]) => {
    const file = path.join(tmp.dir, 'keel.json');
    writeFileSync(file, JSON.stringify({ server: { port: 0 }, plugins: plugins.map((use) => ({ use })) }));
    return file;
  };

  it('keel --help lists them with the default config, as the plugin\'s', async () => {
    const res = await runKeel(['--help']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/\n {2}keel runner\n {6}Execute runs for a `keel serve --no-runner`.*\(plugin gateway-runs\)/);
    expect(res.stdout).to.match(/\n {2}--\[no-\]runner\n {6}Execute runs in the server process.*\(plugin gateway-runs, config runner\)/);
  });

  it('without gateway-runs in the config there is neither: help does not list them, and both are usage mistakes (exit 2)', async () => {
    const config = configOf(['@keel/plugin-ledger', path.join(fixturesDir, 'kernel-probe-plugin.js')]);
    const help = await runKeel(['--help', '--config', config]);
    expect(help.stdout).to.not.contain('keel runner').and.not.contain('runner');
    const runner = await runKeel(['runner', '--config', config, '--data-dir', path.join(tmp.dir, 'data')]);
    expect(runner.code).to.equal(2);
    expect(runner.stderr).to.contain("unknown command 'runner'").and.contain('loads no plugin that offers');
    const serve = await runKeel(['serve', '--config', config, '--data-dir', path.join(tmp.dir, 'data'), '--no-runner']);
    expect(serve.code).to.equal(2);
    expect(serve.stderr).to.contain("'--no-runner'");
  });

  it('keel runner takes no arguments (exit 2 with its usage line)', async () => {
    const res = await runKeel(['runner', 'now', '--data-dir', path.join(tmp.dir, 'data')]);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.contain("runner takes no arguments (got 'now')").and.contain('usage: keel runner');
  });
});
