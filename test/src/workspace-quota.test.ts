import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { randomBytes } from 'node:crypto';
import { bundle, edges, multipart, node, toolCallsFlow } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

/**
 * Issue 9 (bounded disk per run): a run's file tools may not fill the disk. A root run's folder holds
 * at most `workspace.maxFolderEntries` files and folders and `workspace.maxFolderBytes` bytes, and a
 * tool creates no path deeper than `workspace.maxPathDepth`. A refusal is a sentence in the tool's
 * result; the run goes on. Everything through the front door: bundle upload, run start, run record.
 */

type ToolResult = { call_id: string; name: string; success: boolean; output: string | null; error: string | null };
type Call = { name: string; arguments: Record<string, unknown>; call_id: string };

const TERMINAL = ['completed', 'failed', 'cancelled'];
const call = (call_id: string, name: string, args: Record<string, unknown>): Call => ({ call_id, name, arguments: args });
const write = (call_id: string, file: string, content: string) => call(call_id, 'write_file', { path: file, content });

/** start → tool_calls (`first`) → ask_user → tool_calls (`second`) → end: the folder outlives a restart between the steps. */
function toolsTwiceFlow() {
  return {
    id: 'tools-twice',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['first', 'second'] }),
      node({ id: 'tools1', type: 'tool_calls', inputs: ['tool_calls'], outputs: ['results', 'success'] }),
      node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Go on?' } } }),
      node({ id: 'tools2', type: 'tool_calls', inputs: ['tool_calls'], outputs: ['results', 'success'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['results', 'success'] }),
    ],
    edges: edges('start -> tools1', 'tools1 -> ask', 'ask -> tools2', 'tools2 -> end', 'start.first -> tools1.tool_calls', 'start.second -> tools2.tool_calls', 'tools2.results -> end.results', 'tools2.success -> end.success'),
  };
}

describe('workspace quota: a run cannot fill the disk through its file tools (issue 9, bounded disk per run)', function () {
  this.timeout(120_000);
  let k: TestKernel;
  let bob = '';
  const outside = tempDir('keel-quota-');

  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { workspace: { maxFolderEntries: 6, maxFolderBytes: 1000, maxPathDepth: 4 } } }],
    });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    expect(created.statusCode).to.equal(201);
    bob = created.json<{ token: { token: string } }>().token.token;
    for (const [token, id] of [[k.adminToken, 'admin-tools'], [bob, 'bob-tools']] as const) {
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', toolCallsFlow()) });
      const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(201);
    }
  });
  after(async () => {
    await k?.stop();
    outside.remove();
  });

  const folder = (runId: string) => path.join(k.dataDir, 'workspaces', `run-${runId}`);

  /** Runs `calls` in one tool_calls step as bob (or the admin) and waits for the run to end. */
  async function run(calls: Call[], token = bob) {
    const bundleId = token === bob ? 'bob-tools' : 'admin-tools';
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: bundleId, input_data: { calls } } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const record = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<RunRecord>(), (r) => TERMINAL.includes(r.status), 60_000);
    expect(record.status, record.error ?? '').to.equal('completed');
    const results = new Map(((record.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
    expect(results.size).to.equal(calls.length);
    return { runId, results };
  }

  it('refuses a path deeper than workspace.maxPathDepth (the attack: a/ × 2000) before creating a folder, and the run goes on', async () => {
    const { runId, results } = await run([
      write('attack', `${'a/'.repeat(2000)}x`, 'x'),
      write('five', 'b/c/d/e/x.txt', 'x'),
      write('four', 'b/c/d/x.txt', 'fine'),
    ]);
    expect(results.get('attack')).to.deep.include({ success: false, output: null });
    expect(results.get('attack')!.error).to.match(/ is 2001 folders deep, over the 4 a file tool may create \(gateway-runs setting workspace\.maxPathDepth\); use a shorter path\.$/);
    expect(results.get('five')).to.deep.include({ success: false, error: 'b/c/d/e/x.txt is 5 folders deep, over the 4 a file tool may create (gateway-runs setting workspace.maxPathDepth); use a shorter path.' });
    expect(results.get('four')).to.deep.include({ success: true, output: 'Wrote 4 bytes to b/c/d/x.txt.' });
    expect(existsSync(path.join(folder(runId), 'a'))).to.equal(false);
    expect(existsSync(path.join(folder(runId), 'b', 'c', 'd', 'e'))).to.equal(false);
  });

  it('refuses a new file or folder once the folder holds workspace.maxFolderEntries entries; overwriting an existing file still works', async () => {
    const files = ['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map((f) => write(f, `${f}.txt`, f));
    const { runId, results } = await run([
      ...files,
      write('seventh', 'f7.txt', 'f7'),
      write('folder', 'sub/g.txt', 'g'),
      write('overwrite', 'f1.txt', 'new f1'),
      call('edit', 'edit_file', { path: 'f2.txt', old: 'f2', new: 'edited' }),
      call('list', 'list_files', {}),
    ]);
    for (const f of files) expect(results.get(f.call_id), f.call_id).to.deep.include({ success: true });
    const full = 'was not written: this run\'s workspace folder would hold more than 6 files and folders (gateway-runs setting workspace.maxFolderEntries); replace an existing file instead of creating new ones.';
    expect(results.get('seventh')).to.deep.include({ success: false, output: null, error: `f7.txt ${full}` });
    expect(results.get('folder')).to.deep.include({ success: false, output: null, error: `sub/g.txt ${full}` });
    expect(results.get('overwrite')).to.deep.include({ success: true, output: 'Wrote 6 bytes to f1.txt.' });
    expect(results.get('edit')).to.deep.include({ success: true });
    expect(results.get('list')!.output).to.equal(['.:', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt', 'f6.txt'].join('\n'));
    expect(existsSync(path.join(folder(runId), 'f7.txt'))).to.equal(false);
    expect(existsSync(path.join(folder(runId), 'sub'))).to.equal(false);
    expect(readFileSync(path.join(folder(runId), 'f2.txt'), 'utf8')).to.equal('edited');
  });

  it('refuses content that would take the folder past workspace.maxFolderBytes (write and edit); smaller content at quota still works', async () => {
    const { runId, results } = await run([
      write('first', 'one.txt', 'a'.repeat(600)),
      write('second', 'two.txt', 'b'.repeat(600)),
      write('grow', 'one.txt', 'a'.repeat(1001)),
      write('at-quota', 'one.txt', 'a'.repeat(900)),
      write('tiny', 'two.txt', 'b'.repeat(101)),
      write('shrink', 'one.txt', 'a'.repeat(100)),
      write('after', 'two.txt', `${'b'.repeat(796)}END!`),
      call('edit-grow', 'edit_file', { path: 'two.txt', old: 'END!', new: 'c'.repeat(200) }),
      call('edit-shrink', 'edit_file', { path: 'two.txt', old: 'END!', new: 'c' }),
    ]);
    const full = (shown: string) => `${shown} was not written: this run's workspace folder would hold more than 1000 bytes (gateway-runs setting workspace.maxFolderBytes); write less, or replace a file with smaller content.`;
    expect(results.get('first')).to.deep.include({ success: true });
    expect(results.get('second')).to.deep.include({ success: false, output: null, error: full('two.txt') });
    expect(results.get('grow')).to.deep.include({ success: false, output: null, error: full('one.txt') });
    expect(results.get('at-quota')).to.deep.include({ success: true, output: 'Wrote 900 bytes to one.txt.' });
    expect(results.get('tiny')).to.deep.include({ success: false, error: full('two.txt') });
    expect(results.get('shrink')).to.deep.include({ success: true, output: 'Wrote 100 bytes to one.txt.' });
    expect(results.get('after')).to.deep.include({ success: true, output: 'Wrote 800 bytes to two.txt.' });
    expect(results.get('edit-grow')).to.deep.include({ success: false, error: full('two.txt') });
    expect(results.get('edit-shrink')).to.deep.include({ success: true });
    expect(readFileSync(path.join(folder(runId), 'one.txt'), 'utf8')).to.equal('a'.repeat(100));
    expect(readFileSync(path.join(folder(runId), 'two.txt'), 'utf8')).to.have.length(797);
  });

  it("charges each root run's own folder: a new run starts empty", async () => {
    const { results } = await run(['f1', 'f2', 'f3', 'f4', 'f5', 'f6'].map((f) => write(f, `${f}.txt`, 'x'.repeat(150))));
    for (const r of results.values()) expect(r, r.call_id).to.deep.include({ success: true });
  });

  it("does not charge an admin run's writes outside its folder to the folder's quota (only the depth cap applies)", async () => {
    const target = path.join(outside.dir, 'big.txt');
    const { results } = await run([
      write('outside', target, 'z'.repeat(5000)),
      write('deep-outside', path.join(outside.dir, 'p/q/r/s/t/u.txt'), 'z'),
      write('inside', 'big.txt', 'z'.repeat(5000)),
    ], k.adminToken);
    expect(results.get('outside')).to.deep.include({ success: true, output: `Wrote 5000 bytes to ${target}.` });
    expect(results.get('deep-outside')!.error).to.contain('is 5 folders deep, over the 4 a file tool may create (gateway-runs setting workspace.maxPathDepth)');
    expect(results.get('inside')!.error).to.contain('workspace.maxFolderBytes');
    expect(readFileSync(target, 'utf8')).to.have.length(5000);
  });

  it('measures the folder again after a restart (the usage record is not on disk): a full folder stays full, a smaller overwrite still works', async () => {
    const data = tempDir('keel-quota-restart-');
    const boot = () => createTestKernel({ dataDir: data.dir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { workspace: { maxFolderEntries: 6, maxFolderBytes: 1000, maxPathDepth: 4 } } }] });
    let g = await boot();
    try {
      const body = multipart({}, { name: 'admin-twice.flow', bytes: bundle('admin-twice', '1.0.0', toolsTwiceFlow()) });
      expect((await g.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: g.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
      const first = ['f1', 'f2', 'f3', 'f4', 'f5'].map((f) => write(f, `${f}.txt`, f));
      const second = [write('sixth', 'f6.txt', 'f6'), write('seventh', 'f7.txt', 'f7'), write('overwrite', 'f1.txt', 'x')];
      const started = await g.inject({ method: 'POST', url: '/api/gateway/runs/start', token: g.adminToken, payload: { bundle_id: 'admin-twice', input_data: { first, second } } });
      expect(started.statusCode, started.body).to.equal(200);
      const runId = started.json<{ run_id: string }>().run_id;
      await until(async () => (await g.inject({ url: `/api/gateway/runs/${runId}`, token: g.adminToken })).json<RunRecord>(), (r) => r.status === 'waiting', 60_000);
      // The first step left 5 files; a new gateway on the same data directory must find them on disk.
      await g.stop();
      g = await boot();
      const resumed = await g.inject({ method: 'POST', url: '/api/gateway/commands', token: g.adminToken, payload: { command_id: randomBytes(8).toString('hex'), run_id: runId, type: 'resume', payload: { payload: { response: 'go' } } } });
      expect(resumed.statusCode, resumed.body).to.equal(200);
      const record = await until(async () => (await g.inject({ url: `/api/gateway/runs/${runId}`, token: g.adminToken })).json<RunRecord>(), (r) => TERMINAL.includes(r.status), 60_000);
      expect(record.status, record.error ?? '').to.equal('completed');
      const results = new Map(((record.output?.results ?? []) as ToolResult[]).map((r) => [r.call_id, r]));
      expect(results.get('sixth')).to.deep.include({ success: true });
      expect(results.get('seventh')!.error).to.equal("f7.txt was not written: this run's workspace folder would hold more than 6 files and folders (gateway-runs setting workspace.maxFolderEntries); replace an existing file instead of creating new ones.");
      expect(results.get('overwrite')).to.deep.include({ success: true, output: 'Wrote 1 bytes to f1.txt.' });
      expect(existsSync(path.join(data.dir, 'workspaces', `run-${runId}`, 'f7.txt'))).to.equal(false);
    } finally {
      await g.stop();
      data.remove();
    }
  });
});
