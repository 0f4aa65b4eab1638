import { readFileSync, writeFileSync, statSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { runKeel, startRunner, startServer, type KeelProcess, type ServerProcess } from './helpers/cli.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { HeldStreamEndpoint } from './helpers/held-stream-endpoint.js';
import { repoRoot, tempDir } from './helpers/paths.js';
import { json, openSse } from './helpers/sse.js';

describe('keel serve --no-runner with keel runner in another process on the same data dir', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  before(async () => {
    keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.start(['--no-runner']);
  });
  after(() => keel.dispose());

  const call = async (method: string, url: string, body?: unknown) => (await keel.call(method, url, body)).body;

  it('queues the run with a runner_warning, then the separate runner executes it with live deltas on the server stream', async () => {
    const started = await call('POST', '/api/gateway/runs/start', { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'Tell me a story.', _runtime: { stream: true } } });
    expect(started.runner_warning).to.be.a('string').and.contain('--no-runner');
    const runId = started.run_id as string;
    // No runner in any process yet: the run is queued, not executed.
    expect((await call('GET', `/api/gateway/runs/${runId}`)).status).to.equal('running');

    // Subscribed (the response's headers are in) before the runner starts, so no delta is missed.
    const stream = await openSse(`${keel.url}/api/gateway/runs/${runId}/ledger/stream`, { token: keel.adminToken });
    const reading = stream.collect({ until: () => false, deadline: 150_000, what: 'the end of the run stream' });
    await keel.startRunner();

    await reading;
    const deltas = stream.named('llm.delta').map((e) => json<{ text: string }>(e).text);
    expect(deltas.join('')).to.equal('Once upon a time, a little boat named Keel sailed across the sea. It found a small island full of friendly birds. At sunset, Keel sailed home happy.');
    expect(stream.events.filter((e) => e.id !== undefined).map((e) => Number(e.id))).to.deep.equal([1, 2, 3, 4]);
    expect(stream.last!.event).to.equal('done');
    const run = await call('GET', `/api/gateway/runs/${runId}`);
    expect(run.status).to.equal('completed');

    // The live file was owner-only while it lived, and is gone now the run ended (removed right after its last write, which is asynchronous).
    const liveDir = path.join(keel.dataDir, 'live');
    expect(statSync(liveDir).mode & 0o777).to.equal(0o700);
    expect(await until(async () => readdirSync(liveDir).filter((f) => f.startsWith(runId)), (left) => left.length === 0, 30_000)).to.deep.equal([]);

    // Commands submitted on the server reach the runner.
    const second = (await call('POST', '/api/gateway/runs/start', { bundle_id: 'keel-chat', input_data: { prompt: 'Count to three.' } })).run_id as string;
    const done = await until(() => call('GET', `/api/gateway/runs/${second}`), { ok: (r) => r.status === 'completed', deadline: 60_000, what: `run ${second} to complete on the runner` });
    expect(done.output).to.deep.include({ response: '1, 2, 3.' });
  });

  it('keeps a second runner from running on the same data dir: it says why and exits 1', async () => {
    const second = await runKeel(['runner', '--config', keel.configFile, '--data-dir', keel.dataDir]);
    expect(second.code).to.equal(1);
    expect(second.stderr).to.contain(`keel: cannot start: Another runner (pid ${keel.runner!.child.pid}) holds`);
  });
});

describe('GET /api/gateway/host/runner with a separate runner process', function () {
  this.timeout(180_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  let server: ServerProcess | undefined;
  let runner: KeelProcess | undefined;
  after(async () => {
    await runner?.stop('SIGKILL');
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it("reports the runner process's last hang, read from the dump it writes under <data>/host/hangs", async () => {
    const probe = path.join(repoRoot, 'test', 'dist', 'fixtures', 'kernel-probe-plugin.js');
    // The route and `keel runner` are gateway-runs': the watchdog's dumps are read through the kernel's core.watchdog.
    const plugins = (block: number) => [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }, { use: probe, config: { blockAfterStartMs: block } }];
    const config = (block: number) => ({ server: { port: 0, logLevel: 'warn', watchdog: { enabled: true, limitS: 0.5 } }, plugins: plugins(block) });
    writeFileSync(path.join(tmp.dir, 'server.json'), JSON.stringify(config(0)));
    writeFileSync(path.join(tmp.dir, 'runner.json'), JSON.stringify(config(1500)));
    server = await startServer(['--config', path.join(tmp.dir, 'server.json'), '--data-dir', dataDir, '--no-runner']);
    const token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
    const lastHang = async () => ((await (await fetch(`${server!.url}/api/gateway/host/runner`, { headers: { authorization: `Bearer ${token}` } })).json()) as { last_hang: Record<string, unknown> | null }).last_hang;
    expect(await lastHang()).to.equal(null);

    runner = await startRunner(['--config', path.join(tmp.dir, 'runner.json'), '--data-dir', dataDir]);
    const hang = await until(lastHang, { ok: (h) => h !== null && (h.blocked_s as number) >= 1.4, deadline: 60_000, what: "the runner's hang to be reported" });
    expect(hang).to.include({ process: 'runner' });
    expect(hang!.blocked_s).to.be.at.least(1.4); // the dump is rewritten with the whole duration once the loop recovers
    // Any frame of the probe's blocking loop: it also polls for the dump (dumpsIn) while it blocks.
    expect(hang!.top_frame).to.match(/blockFor|dumpsIn/);
    expect(String(hang!.dump_path)).to.match(/host\/hangs\/hang-.*-runner\.json$/);
  });
});

describe('a server restarted while a separate runner is mid-call', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  // Streams one chunk, then holds the rest until the test releases it.
  const endpoint = new HeldStreamEndpoint();
  after(async () => {
    await endpoint.stop();
    await keel.dispose();
  });

  it('replays the runner\'s live file: a late subscriber gets the text so far as a snapshot, then the rest', async () => {
    const baseUrl = await endpoint.start();
    keel.configure([{ use: '@keel/plugin-inference', config: { endpoints: [{ name: 'fake', baseUrl, models: ['slow'] }] } }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.start(['--no-runner']);
    await keel.startRunner();
    const started = await keel.call('POST', '/api/gateway/runs/start', { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'Say hello.', _runtime: { provider: 'fake', model: 'slow', stream: true } } });
    const runId = started.body.run_id as string;
    await endpoint.firstChunk;
    // Wait until the runner has written the delta to the run tree's live file, then restart the server.
    const liveFile = () => readdirSync(path.join(keel.dataDir, 'live')).find((f) => f.endsWith('.jsonl') && f !== '_wake.jsonl');
    await until(liveFile, { ok: (file) => file !== undefined && readFileSync(path.join(keel.dataDir, 'live', file), 'utf8').includes('Hello'), deadline: 60_000, what: "the runner's live file to hold the first delta" });
    await keel.restart();

    const stream = await openSse(`${keel.url}/api/gateway/runs/${runId}/ledger/stream`, { token: keel.adminToken });
    await stream.collect({ until: (s) => s.named('llm.delta').length > 0, deadline: 60_000, what: 'the first delta' });
    const first = json<{ text: string; snapshot: boolean }>(stream.named('llm.delta')[0]!);
    expect(first).to.include({ text: 'Hello', snapshot: true });
    endpoint.release();
    await stream.collect({ until: () => false, deadline: 60_000, what: 'the end of the run stream' });
    const deltas = stream.named('llm.delta').map((e) => json<{ text: string }>(e).text);
    expect(deltas.join('')).to.equal('Hello world');
    expect(stream.last!.event).to.equal('done');
  });
});

describe('keel serve started while a keel runner already holds the data directory', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  // Streams one chunk, then holds the rest until the test releases it.
  const endpoint = new HeldStreamEndpoint();
  after(async () => {
    await endpoint.stop();
    await keel.dispose();
  });

  it("follows that runner's live traffic: its streams get the deltas, the steps and done", async () => {
    const baseUrl = await endpoint.start();
    keel.configure([{ use: '@keel/plugin-inference', config: { endpoints: [{ name: 'fake', baseUrl, models: ['slow'] }] } }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.startRunner();
    // With its runner on (no --no-runner): the lock is held, so this server only serves.
    await keel.start([]);
    const started = await keel.call('POST', '/api/gateway/runs/start', { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'Say hello.', _runtime: { provider: 'fake', model: 'slow', stream: true } } });
    expect(started.body.runner_warning).to.be.a('string').and.contain('Another runner');
    const runId = started.body.run_id as string;
    await endpoint.firstChunk;

    // A deadline of its own, so a stream that is never woken fails here rather than at mocha's timeout.
    const stream = await fetch(`${keel.url}/api/gateway/runs/${runId}/ledger/stream`, { headers: { authorization: `Bearer ${keel.adminToken}` }, signal: AbortSignal.timeout(90_000) });
    const reader = stream.body!.getReader();
    let text = '';
    const read = async (until: (t: string) => boolean) => {
      while (!until(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    };
    await read((t) => t.includes('event: llm.delta'));
    endpoint.release();
    await read((t) => /event: done/.test(t));
    const deltas = [...text.matchAll(/event: llm\.delta\ndata: (.+)/g)].map((m) => (JSON.parse(m[1]!) as { text: string }).text);
    expect(deltas.join('')).to.equal('Hello world');
    expect(text).to.match(/event: llm\.delta_end/);
    expect(text.trim().split('\n\n').pop()).to.match(/^event: done/);
    // The ledger (read from storage) ends with the run's terminal status.
    const last = (await keel.ledger(runId)).at(-1) as unknown as { result: { name: string; payload: { text: string } } };
    expect(last.result).to.deep.include({ name: 'abstract.status', payload: { text: 'completed' } });
    // This server ran nothing, so it keeps no stale copy of the run: its state is the runner's.
    const run = await keel.call('GET', `/api/gateway/runs/${runId}`);
    expect(run.body.status).to.equal('completed');
  });
});

describe('a separate runner whose live files cannot be written', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  after(() => keel.dispose());

  it('still runs its runs to the end: live traffic is an optimisation, the ledger is the record', async () => {
    keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.start(['--no-runner']);
    await keel.startRunner();
    // A file where the live folder was: every write of the runner's live traffic (and of the server's nudges) fails.
    const liveDir = path.join(keel.dataDir, 'live');
    rmSync(liveDir, { recursive: true, force: true });
    writeFileSync(liveDir, 'not a folder');

    const started = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'keel-chat', input_data: { prompt: 'Count to three.', _runtime: { stream: true } } });
    const runId = started.body.run_id as string;
    const done = await until(() => keel.run(runId), (r) => r.status !== 'running', 90_000);
    expect(done.status).to.equal('completed');
    expect(done.output).to.deep.include({ response: '1, 2, 3.' });
    // A stream opened now reads the ledger: every record, then done.
    const text = await (await fetch(`${keel.url}/api/gateway/runs/${runId}/ledger/stream`, { headers: { authorization: `Bearer ${keel.adminToken}` }, signal: AbortSignal.timeout(60_000) })).text();
    expect(text.trim().split('\n\n').pop()).to.match(/^event: done/);
    expect(keel.runner!.child.exitCode).to.equal(null);
  });
});
