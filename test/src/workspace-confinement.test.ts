import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { bundle, multipart, toolCallsFlow, toolsAfterAskFlow } from './helpers/flow-builder.js';
import { ServedKeel, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { fixturesDir, repoRoot, tempDir } from './helpers/paths.js';

/**
 * The attack of issue 9 items 2, 3, 5 and 16: a non-admin account uploads a private bundle whose
 * tool_calls node takes its calls from input_data, and aims the file tools at the server. Every
 * call goes through the front door (bundle upload, run start, commands, run record, ledger).
 */

type ToolResult = { call_id: string; name: string; success: boolean; output: string | null; error: string | null };
type Call = { name: string; arguments: Record<string, unknown>; call_id: string };

const TERMINAL = ['completed', 'failed', 'cancelled'];
// The confinement is now the default account level of a non-admin account (workspaces setting nonAdmin).
const CONFINED = "is not one of this run's workspaces (Deny everything, allow listed workspaces). Runs of a non-admin account reach only their own workspace folder until an admin sets the account's workspace policy (PUT /api/gateway/workspace/policy/{account}; workspaces setting nonAdmin).";
const SYSTEM = '(a system folder of processes and devices).';
const ONLY_REGULAR = 'the file tools open only regular files and folders.';


const call = (call_id: string, name: string, args: Record<string, unknown>): Call => ({ call_id, name, arguments: args });

/** A kernel on the real boot path with these gateway-runs settings, an admin and the non-admin `bob`. */
function gateway(settings: Record<string, unknown>) {
  let k: TestKernel;
  let bob = '';
  const ctx = {
    get k() {
      return k;
    },
    get bob() {
      return bob;
    },
    async boot() {
      k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: settings }] });
      const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
      expect(created.statusCode).to.equal(201);
      bob = created.json<{ token: { token: string } }>().token.token;
      // Each account uploads its own bundles (bob's are private: a non-admin's default scope).
      for (const token of [k.adminToken, bob]) {
        const who = token === bob ? 'bob' : 'admin';
        for (const [id, flow] of [[`${who}-tools`, toolCallsFlow()], [`${who}-tools-ask`, toolsAfterAskFlow()]] as const) {
          const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
          const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
          expect(res.statusCode, res.body).to.equal(201);
        }
      }
    },
    stop: () => k?.stop(),
    getRun: async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}`, token })).json<RunRecord>(),
    ledger: async (token: string, id: string) => (await k.inject({ url: `/api/gateway/runs/${id}/ledger?limit=2000`, token })).json<{ items: LedgerItem[] }>().items,
    folder: (id: string) => path.join(k.dataDir, 'workspaces', `run-${id}`),
    /** Runs `calls` as `token`'s own bundle; `prepare` gets the run's folder while the run waits before its tools. */
    async run(token: string, calls: Call[], prepare?: (folder: string) => void) {
      const who = token === bob ? 'bob' : 'admin';
      const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: prepare ? `${who}-tools-ask` : `${who}-tools`, input_data: { calls } } });
      expect(started.statusCode, started.body).to.equal(200);
      const runId = started.json<{ run_id: string }>().run_id;
      if (prepare) {
        await until(() => ctx.getRun(token, runId), (r) => r.status === 'waiting');
        prepare(ctx.folder(runId));
        const resumed = await k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: { command_id: randomBytes(8).toString('hex'), run_id: runId, type: 'resume', payload: { payload: { response: 'go' } } } });
        expect(resumed.statusCode).to.equal(200);
      }
      const run = await until(() => ctx.getRun(token, runId), (r) => TERMINAL.includes(r.status), 60_000);
      const results = new Map(((run.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
      return { runId, run, results };
    },
  };
  return ctx;
}

describe('workspace confinement: a non-admin account attacks the server through its own bundle (issue 9 items 2, 5, 16)', function () {
  this.timeout(120_000);
  const outside = tempDir('keel-confine-');
  const g = gateway({ workspace: { maxReadBytes: 4096, maxWriteBytes: 4096, maxResultBytes: 20_000 } });
  before(() => g.boot());
  after(async () => {
    await g.stop();
    outside.remove();
  });

  it("confines bob's run to its own folder: /etc/passwd, /proc/self/environ, /root, /tmp, the Keel installation, /dev/zero, a FIFO and a link out are refused with a sentence", async () => {
    const tmpTarget = path.join(outside.dir, 'bob-was-here.txt');
    const codeTarget = path.join(repoRoot, 'kernel', 'src', `bob-${Date.now()}.ts`);
    const { runId, run, results } = await g.run(g.bob, [
      call('passwd', 'read_file', { path: '/etc/passwd' }),
      call('environ', 'read_file', { path: '/proc/self/environ' }),
      call('root', 'list_files', { path: '/root' }),
      call('tmp', 'write_file', { path: tmpTarget, content: 'x' }),
      call('code', 'write_file', { path: codeTarget, content: 'process.exit(1)' }),
      call('zero', 'read_file', { path: '/dev/zero' }),
      call('fifo-read', 'read_file', { path: 'fifo' }),
      call('fifo-write', 'write_file', { path: 'fifo', content: 'x' }),
      call('link', 'read_file', { path: 'passwd-link' }),
      call('link-data', 'list_files', { path: 'data-link' }),
      call('sibling', 'write_file', { path: '../run-someone-else/x.txt', content: 'x' }),
      call('own-write', 'write_file', { path: 'notes/a.txt', content: 'mine' }),
      call('own-read', 'read_file', { path: 'notes/a.txt' }),
    ], (folder) => {
      execFileSync('mkfifo', [path.join(folder, 'fifo')]);
      symlinkSync('/etc/passwd', path.join(folder, 'passwd-link'));
      symlinkSync(g.k.dataDir, path.join(folder, 'data-link'));
    });
    expect(run.status, run.error ?? '').to.equal('completed');

    for (const [id, shown] of [['passwd', '/etc/passwd'], ['root', '/root'], ['tmp', tmpTarget], ['link', 'passwd-link']] as const) {
      expect(results.get(id), id).to.deep.include({ success: false, output: null, error: `${shown} ${CONFINED}` });
    }
    // Protected folders get the same sentence as any other path the confinement refuses: a confined run
    // learns nothing about where the data folder, the installation or the system folders are.
    for (const [id, shown] of [['environ', '/proc/self/environ'], ['zero', '/dev/zero'], ['code', codeTarget], ['link-data', 'data-link'], ['sibling', '../run-someone-else/x.txt']] as const) {
      expect(results.get(id), id).to.deep.include({ success: false, output: null, error: `${shown} ${CONFINED}` });
    }
    // In its own folder the regular-file rule still holds: a FIFO is neither read (no hang) nor written.
    expect(results.get('fifo-read')!.error).to.equal(`fifo is a FIFO (named pipe); ${ONLY_REGULAR}`);
    expect(results.get('fifo-write')!.error).to.equal(`fifo is a FIFO (named pipe); ${ONLY_REGULAR}`);
    expect(results.get('own-write')).to.deep.include({ success: true, output: 'Wrote 4 bytes to notes/a.txt.' });
    expect(results.get('own-read')).to.deep.include({ success: true, output: 'mine' });
    expect(existsSync(tmpTarget)).to.equal(false);
    expect(existsSync(codeTarget)).to.equal(false);
    expect(readFileSync(path.join(g.folder(runId), 'notes', 'a.txt'), 'utf8')).to.equal('mine');

    // Item 16: neither the tool errors nor input_data tell bob where the data directory is.
    const data = [g.k.dataDir, realpathSync(g.k.dataDir)];
    for (const r of results.values()) for (const d of data) expect(r.error ?? '', r.call_id).to.not.contain(d);
    const input = (await g.k.inject({ url: `/api/gateway/runs/${runId}/input_data`, token: g.bob })).json<Record<string, unknown>>();
    expect(input._gateway_workspace).to.deep.equal({ kind: 'run', path: `workspaces/run-${runId}`, level: 'account', summary: 'Deny everything, allow listed workspaces' });
    for (const d of data) expect(JSON.stringify(input)).to.not.contain(d);
  });

  it('keeps the gateway default for an admin run (a temp folder outside the data dir is readable) but refuses /proc, /dev, /sys, the Keel installation, the home configuration, FIFOs and links into them', async () => {
    const free = path.join(outside.dir, 'free');
    mkdirSync(free, { recursive: true });
    writeFileSync(path.join(free, 'hello.txt'), 'hello admin');
    const fifo = path.join(outside.dir, 'admin-fifo');
    execFileSync('mkfifo', [fifo]);
    symlinkSync('/proc/self/environ', path.join(outside.dir, 'environ-link'));
    const codeTarget = path.join(repoRoot, 'kernel', 'src', `admin-${Date.now()}.ts`);
    const homeConfig = path.join(os.homedir(), '.keel-confinement-probe');
    const install = realpathSync(repoRoot);
    const { run, results } = await g.run(g.k.adminToken, [
      call('free', 'read_file', { path: path.join(free, 'hello.txt') }),
      call('free-list', 'list_files', { path: free }),
      call('environ', 'read_file', { path: '/proc/self/environ' }),
      call('zero', 'read_file', { path: '/dev/zero' }),
      call('sys', 'list_files', { path: '/sys/kernel' }),
      call('fifo-read', 'read_file', { path: fifo }),
      call('fifo-write', 'write_file', { path: fifo, content: 'x' }),
      call('link', 'read_file', { path: path.join(outside.dir, 'environ-link') }),
      call('code', 'write_file', { path: codeTarget, content: 'process.exit(1)' }),
      call('code-read', 'read_file', { path: path.join(repoRoot, 'package.json') }),
      call('home', 'write_file', { path: homeConfig, content: 'x' }),
    ]);
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(results.get('free')).to.deep.include({ success: true, output: 'hello admin' });
    expect(results.get('free-list')).to.deep.include({ success: true });
    expect(results.get('environ')!.error).to.equal(`/proc/self/environ is inside /proc, which is protected ${SYSTEM}`);
    expect(results.get('zero')!.error).to.equal(`/dev/zero is inside /dev, which is protected ${SYSTEM}`);
    expect(results.get('sys')!.error).to.equal(`/sys/kernel is inside /sys, which is protected ${SYSTEM}`);
    expect(results.get('fifo-read')!.error).to.equal(`${fifo} is a FIFO (named pipe); ${ONLY_REGULAR}`);
    expect(results.get('fifo-write')!.error).to.equal(`${fifo} is a FIFO (named pipe); ${ONLY_REGULAR}`);
    expect(results.get('link')!.error).to.equal(`${path.join(outside.dir, 'environ-link')} leads into a folder that is protected ${SYSTEM}`);
    expect(results.get('code')!.error).to.equal(`${codeTarget} is inside ${install}, which is protected (the Keel installation, the server's own code).`);
    expect(results.get('code-read')!.error).to.equal(`${path.join(repoRoot, 'package.json')} is inside ${install}, which is protected (the Keel installation, the server's own code).`);
    expect(results.get('home')!.error).to.equal(`${homeConfig} is inside ${realpathSync(os.homedir())}/.keel-confinement-probe, which is protected (the server user's home configuration).`);
    expect(existsSync(codeTarget)).to.equal(false);
    expect(existsSync(homeConfig)).to.equal(false);
  });

  it('refuses a read or a write over the size caps with a sentence in the tool result; the run goes on', async () => {
    const big = path.join(outside.dir, 'big.txt');
    writeFileSync(big, 'y'.repeat(5000));
    const { run, results } = await g.run(g.bob, [
      call('write-big', 'write_file', { path: 'big.txt', content: 'x'.repeat(5000) }),
      call('write-ok', 'write_file', { path: 'ok.txt', content: `a${'x'.repeat(4095)}` }),
      call('edit-grow', 'edit_file', { path: 'ok.txt', old: 'a', new: 'ab' }),
    ]);
    expect(run.status).to.equal('completed');
    expect(results.get('write-big')!.error).to.equal('The content is 5000 bytes, over the 4 KiB a file tool writes (gateway-runs setting workspace.maxWriteBytes); write less, or in several files.');
    expect(results.get('write-ok')).to.deep.include({ success: true });
    expect(results.get('edit-grow')!.error).to.equal('The content is 4097 bytes, over the 4 KiB a file tool writes (gateway-runs setting workspace.maxWriteBytes); write less, or in several files.');

    const admin = await g.run(g.k.adminToken, [call('read-big', 'read_file', { path: big })]);
    expect(admin.results.get('read-big')!.error).to.equal(`${big} is 5000 bytes, over the 4 KiB a file tool reads (gateway-runs setting workspace.maxReadBytes); read a smaller file.`);
  });

  it('fails a tool_calls step whose results outgrow maxResultBytes, with the reason recorded and no retry', async () => {
    const file = path.join(outside.dir, 'four-k.txt');
    writeFileSync(file, 'z'.repeat(4000));
    const calls = Array.from({ length: 8 }, (_, i) => call(`r${i}`, 'read_file', { path: file }));
    const { runId, run } = await g.run(g.k.adminToken, calls);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^The results of the tool calls reached .* at call r4, over the 20000 bytes of one tool_calls step \(gateway-runs setting workspace\.maxResultBytes\); they were stopped\.$/);
    const steps = (await g.ledger(g.k.adminToken, runId)).filter((i) => i.effect?.type === 'tool_calls');
    expect(steps.map((s) => [s.status, s.attempt])).to.deep.equal([['started', 1], ['failed', 1]]);
    expect(steps[1]!.result).to.deep.include({ retryable: false, will_retry: false });
  });
});

describe('tool_calls time budget (issue 9 item 5)', function () {
  this.timeout(120_000);
  const g = gateway({ workspace: { stepTimeoutMs: 1 } });
  before(() => g.boot());
  after(() => g.stop());

  it('fails a step that takes longer than stepTimeoutMs with the reason on its ledger record, not retried', async () => {
    const calls = Array.from({ length: 300 }, (_, i) => call(`l${i}`, 'list_files', {}));
    const { runId, run } = await g.run(g.bob, calls);
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal('The tool calls took longer than 1 ms, the budget of one tool_calls step (gateway-runs setting workspace.stepTimeoutMs); they were stopped.');
    const steps = (await g.ledger(g.bob, runId)).filter((i) => i.effect?.type === 'tool_calls');
    expect(steps.map((s) => [s.status, s.attempt])).to.deep.equal([['started', 1], ['failed', 1]]);
    expect(steps[1]!.error).to.equal(run.error);
  });
});

describe('a tool step interrupted by a crash is not entered again (issue 9 item 5)', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  before(() => keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs', config: { workspace: { stepTimeoutMs: 600_000, maxResultBytes: 64 * 1024 * 1024 } } }]));
  after(() => keel.dispose());

  it('records the started-but-unfinished step as failed after kill -9 and a restart, and fails the run instead of re-running it', async () => {
    await keel.start();
    const body = multipart({}, { name: 'tools.flow', bytes: bundle('long-tools', '1.0.0', toolCallsFlow()) });
    expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
    // Many small calls: a step that takes seconds, so the kill lands inside it.
    const calls = Array.from({ length: 30_000 }, (_, i) => call(`c${i}`, 'list_files', {}));
    const started = await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'long-tools', input_data: { calls } });
    expect(started.status).to.equal(200);
    const runId = started.body.run_id as string;
    const inFlight = await until(() => keel.ledger(runId), (items) => items.some((i) => i.effect?.type === 'tool_calls' && i.status === 'started'), 120_000);
    expect(inFlight.some((i) => i.effect?.type === 'tool_calls' && i.status !== 'started'), 'the step finished before the kill').to.equal(false);
    await keel.restart();

    const run = await until(() => keel.run(runId), (r) => TERMINAL.includes(r.status), 120_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.match(/^Interrupted by a restart: the tool calls of attempt 1 started at .* and never finished; they are not run again\.$/);
    const steps = (await keel.ledger(runId)).filter((i) => i.effect?.type === 'tool_calls');
    expect(steps.map((s) => [s.status, s.attempt])).to.deep.equal([['started', 1], ['failed', 1]]);
    expect(steps[1]!.step_id).to.equal(steps[0]!.step_id);
    expect(steps[1]!.result).to.deep.include({ interrupted: true, will_retry: false });
  });
});

describe('KEEL_ADMIN_TOKEN stays out of reach (issue 9 item 3), on a real keel serve process', function () {
  this.timeout(120_000);
  const tmp = tempDir('keel-secret-');
  const token = `keel-secret-${randomBytes(16).toString('hex')}`;
  let server: ServerProcess | undefined;
  const api = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, ...(body && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers }, body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body) });
    return { status: res.status, text: await res.text() };
  };
  before(async () => {
    const config = path.join(tmp.dir, 'keel.json');
    writeFileSync(config, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins: [{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }, { use: path.join(fixturesDir, 'env-probe-plugin.js') }] }));
    // KEEL_PROBE_VISIBLE is no secret: it shows the probe sees what is left of the environment.
    server = await startServer(['--config', config, '--data-dir', path.join(tmp.dir, 'data')], { KEEL_ADMIN_TOKEN: token, KEEL_PROBE_VISIBLE: '1', KEEL_EXTRA_SECRET: 'also-secret' });
  });
  after(async () => {
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it("an admin run's file tools cannot read the token from /proc, a link into it, or the data directory", async () => {
    const body = multipart({}, { name: 'tools.flow', bytes: bundle('env-tools', '1.0.0', toolCallsFlow()) });
    expect((await api('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
    symlinkSync('/proc/self/environ', path.join(tmp.dir, 'environ-link'));
    const pid = server!.child.pid!;
    const calls = [
      call('self', 'read_file', { path: '/proc/self/environ' }),
      call('pid', 'read_file', { path: `/proc/${pid}/environ` }),
      call('thread', 'read_file', { path: '/proc/thread-self/environ' }),
      call('devfd', 'read_file', { path: '/dev/fd/../environ' }),
      call('list', 'list_files', { path: '/proc/self' }),
      call('link', 'read_file', { path: path.join(tmp.dir, 'environ-link') }),
      call('auth', 'list_files', { path: path.join(tmp.dir, 'data', 'auth') }),
    ];
    const started = await api('POST', '/api/gateway/runs/start', { bundle_id: 'env-tools', input_data: { calls } });
    expect(started.status, started.text).to.equal(200);
    const runId = (JSON.parse(started.text) as { run_id: string }).run_id;
    const run = await until(async () => JSON.parse((await api('GET', `/api/gateway/runs/${runId}`)).text) as RunRecord, (r) => TERMINAL.includes(r.status));
    expect(run.status).to.equal('completed');
    const results = (run.output!.results as ToolResult[]);
    expect(results.map((r) => [r.call_id, r.success])).to.deep.equal(calls.map((c) => [c.call_id, false]));
    const ledger = (await api('GET', `/api/gateway/runs/${runId}/ledger?limit=2000`)).text;
    expect(JSON.stringify(run) + ledger).to.not.contain(token);
  });

  it('removed KEEL_ADMIN_TOKEN and the other KEEL_* secrets from the server process, its worker threads and the child processes it starts', async () => {
    const probe = await api('GET', '/api/gateway/env-probe');
    expect(probe.status, probe.text).to.equal(200);
    const seen = JSON.parse(probe.text) as { process: string[]; worker: string[]; child: string[] };
    for (const where of ['process', 'worker', 'child'] as const) {
      expect(seen[where], where).to.include('KEEL_PROBE_VISIBLE');
      expect(seen[where], where).to.not.include('KEEL_ADMIN_TOKEN');
      expect(seen[where], where).to.not.include('KEEL_EXTRA_SECRET');
    }
  });
});
