import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { keelBin, repoRoot, tempDir } from './helpers/paths.js';

describe('keel serve --no-runner with keel runner in another process on the same data dir', function () {
  this.timeout(60_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  const configFile = path.join(tmp.dir, 'keel.json');
  let server: ServerProcess | undefined;
  let runner: ReturnType<typeof spawn> | undefined;
  let token = '';

  before(async () => {
    writeFileSync(configFile, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins: [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-gateway-runs' }] }));
    server = await startServer(['--config', configFile, '--data-dir', dataDir, '--no-runner']);
    token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
  });
  after(async () => {
    runner?.kill('SIGKILL');
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${server!.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown>;
  };

  it('queues the run with a runner_warning, then the separate runner executes it with live deltas on the server stream', async () => {
    const started = await call('POST', '/api/gateway/runs/start', { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'Tell me a story.', _runtime: { stream: true } } });
    expect(started.runner_warning).to.be.a('string').and.contain('--no-runner');
    const runId = started.run_id as string;
    await new Promise((r) => setTimeout(r, 300));
    expect((await call('GET', `/api/gateway/runs/${runId}`)).status).to.equal('running');

    const stream = fetch(`${server!.url}/api/gateway/runs/${runId}/ledger/stream`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 200));
    runner = spawn(process.execPath, [keelBin, 'runner', '--config', configFile, '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let runnerOut = '';
    runner.stdout!.on('data', (d: Buffer) => (runnerOut += d.toString()));
    runner.stderr!.on('data', (d: Buffer) => (runnerOut += d.toString()));

    const text = await stream;
    expect(runnerOut).to.contain('Keel runner started');
    const deltas = text.split('\n\n').filter((b) => b.startsWith('event: llm.delta\n')).map((b) => (JSON.parse(/data: (.+)/.exec(b)![1]!) as { text: string }).text);
    expect(deltas.join('')).to.equal('Once upon a time, a little boat named Keel sailed across the sea. It found a small island full of friendly birds. At sunset, Keel sailed home happy.');
    expect([...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).to.deep.equal([1, 2, 3, 4]);
    expect(text.trim().split('\n\n').pop()).to.match(/^event: done/);
    const run = await call('GET', `/api/gateway/runs/${runId}`);
    expect(run.status).to.equal('completed');

    // The live file was owner-only while it lived, and is gone now the run ended.
    const liveDir = path.join(dataDir, 'live');
    expect(statSync(liveDir).mode & 0o777).to.equal(0o700);
    expect(readdirSync(liveDir).filter((f) => f.startsWith(runId))).to.deep.equal([]);

    // Commands submitted on the server reach the runner.
    const second = (await call('POST', '/api/gateway/runs/start', { bundle_id: 'keel-chat', input_data: { prompt: 'Count to three.' } })).run_id as string;
    for (let i = 0; i < 200; i++) {
      if ((await call('GET', `/api/gateway/runs/${second}`)).status === 'completed') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await call('GET', `/api/gateway/runs/${second}`)).output).to.deep.include({ response: '1, 2, 3.' });
  });

  it('keeps a second runner from running on the same data dir', async () => {
    const second = spawn(process.execPath, [keelBin, 'runner', '--config', configFile, '--data-dir', dataDir], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    second.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    second.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise((r) => setTimeout(r, 2500));
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
    expect(out).to.contain('another runner holds the lock');
  });
});

describe('GET /api/gateway/host/runner with a separate runner process', function () {
  this.timeout(60_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  let server: ServerProcess | undefined;
  let runner: ReturnType<typeof spawn> | undefined;
  after(async () => {
    runner?.kill('SIGKILL');
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it("reports the runner process's last hang, read from the dump it writes under <data>/host/hangs", async () => {
    const probe = path.join(repoRoot, 'test', 'dist', 'fixtures', 'kernel-probe-plugin.js');
    const config = (block: number) => ({ server: { port: 0, logLevel: 'warn', watchdog: { enabled: true, limitS: 0.5 } }, plugins: [{ use: '@keel/plugin-ledger' }, { use: probe, config: { blockAfterStartMs: block } }] });
    writeFileSync(path.join(tmp.dir, 'server.json'), JSON.stringify(config(0)));
    writeFileSync(path.join(tmp.dir, 'runner.json'), JSON.stringify(config(1500)));
    server = await startServer(['--config', path.join(tmp.dir, 'server.json'), '--data-dir', dataDir, '--no-runner']);
    const token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
    const lastHang = async () => ((await (await fetch(`${server!.url}/api/gateway/host/runner`, { headers: { authorization: `Bearer ${token}` } })).json()) as { last_hang: Record<string, unknown> | null }).last_hang;
    expect(await lastHang()).to.equal(null);

    runner = spawn(process.execPath, [keelBin, 'runner', '--config', path.join(tmp.dir, 'runner.json'), '--data-dir', dataDir], { cwd: repoRoot, stdio: 'ignore' });
    let hang: Record<string, unknown> | null = null;
    for (let i = 0; i < 100 && !(hang && (hang.blocked_s as number) >= 1.4); i++) {
      await new Promise((r) => setTimeout(r, 100));
      hang = await lastHang();
    }
    expect(hang).to.include({ process: 'runner' });
    expect(hang!.blocked_s).to.be.at.least(1.4); // the dump is rewritten with the whole duration once the loop recovers
    expect(hang!.top_frame).to.match(/blockFor/);
    expect(String(hang!.dump_path)).to.match(/host\/hangs\/hang-.*-runner\.json$/);
  });
});
