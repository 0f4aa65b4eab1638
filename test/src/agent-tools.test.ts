import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node, toolCallsFlow } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

/**
 * A stand-in OpenAI-compatible endpoint (a fake is fine inside a test): each model answers its
 * script of replies in order, then keeps its last one; every request's messages are kept.
 */
class ScriptedEndpoint {
  readonly requests: Array<{ model: string; messages: Array<{ role: string; content: string }> }> = [];
  private readonly scripts = new Map<string, string[]>();
  private server: Server | undefined;
  url = '';

  script(model: string, replies: string[]): void {
    this.scripts.set(model, [...replies]);
  }

  of(model: string) {
    return this.requests.filter((r) => r.model === model);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        const parsed = JSON.parse(body || '{}') as { model?: string; messages?: Array<{ role: string; content: string }> };
        const model = String(parsed.model ?? '');
        this.requests.push({ model, messages: parsed.messages ?? [] });
        const script = this.scripts.get(model) ?? ['(no script)'];
        const content = script.length > 1 ? script.shift()! : script[0]!;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', created: 0, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }));
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/v1`;
  }

  stop(): Promise<void> {
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const DEFAULT_TOOLS = ['edit_file', 'analyze_code', 'execute_command', 'fetch_url', 'list_files', 'read_file', 'search_files', 'web_search', 'write_file'];
const MODELS = ['main', 'datadir', 'dotdot', 'symlink', 'outside', 'edit', 'unavailable', 'denyrow', 'allowedonly', 'allowedonly-own', 'node'];
const PROTECTED = "is protected (the gateway's data directory).";

/** The model's text asking for one tool, in the format the agent loop parses. */
const act = (tool: string, args: Record<string, unknown>) => `Let me use a tool.\nAction: ${tool}\nAction Input: ${JSON.stringify(args)}`;

/** start → agent (the default tool list, at most 6 iterations) → end. */
function agentFlow() {
  return {
    id: 'agent',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'think', type: 'agent', inputs: ['prompt', 'tools', 'max_iterations'], outputs: ['response', 'success', 'meta'], data: { pinDefaults: { tools: DEFAULT_TOOLS, max_iterations: 6 } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> think', 'think -> end', 'start.prompt -> think.prompt', 'think.response -> end.response'),
  };
}

type ToolResult = { call_id: string; name: string; success: boolean; output: string | null; error: string | null };

describe('agent file tools in the run workspace (gateway-surfaces §1), as durable tool_calls effects', function () {
  this.timeout(60_000);
  const endpoint = new ScriptedEndpoint();
  const outside = tempDir('keel-tools-');

  before(() => endpoint.start());
  after(async () => {
    await endpoint.stop();
    outside.remove();
  });

  /** A kernel with the fake endpoint and this gateway-runs config, plus the run helpers bound to it. */
  /** `workspaces`: the workspaces plugin's settings (the gateway policy moved there from gateway-runs). */
  function gateway(config: Record<string, unknown> = {}, workspaces: Record<string, unknown> = {}) {
    let k: TestKernel;
    const runs = gatewayRuns(() => k);
    const ctx = {
      get k() {
        return k;
      },
      ...runs,
      async boot() {
        k = await createTestKernel({
          plugins: [
            { plugin: inferencePlugin, config: { endpoints: [{ name: 'fake', baseUrl: endpoint.url, models: MODELS }] } },
            ledgerPlugin,
            { plugin: workspacesPlugin, config: workspaces },
            { plugin: gatewayRunsPlugin, config },
          ],
        });
        await runs.uploadBundle('agent', agentFlow());
      },
      stop: () => k?.stop(),
      /** Runs the agent flow on `model` to its end; answers the root run, its agent child and the child's tool_calls records. */
      async runAgent(model: string, prompt = 'Do the task.') {
        const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'agent', input_data: { prompt, _runtime: { provider: 'fake', model } } } });
        const rootId = started.json<{ run_id: string }>().run_id;
        const root = await until(() => runs.getRun(rootId), (r) => ['completed', 'failed', 'cancelled'].includes(r.status));
        const kids = (await k.inject({ url: `/api/gateway/runs?parent_run_id=${rootId}`, token: k.adminToken })).json<{ items: RunRecord[] }>().items;
        expect(kids, 'one agent child run').to.have.length(1);
        const child = kids[0]!;
        const items = await runs.ledger(child.run_id);
        return { rootId, root, child, items, tools: items.filter((i) => i.effect?.type === 'tool_calls') };
      },
      folder: (rootId: string) => path.join(k.dataDir, 'workspaces', `run-${rootId}`),
    };
    return ctx;
  }

  const results = (tools: LedgerItem[]) => tools.filter((t) => t.status === 'completed').flatMap((t) => (t.result as { results: ToolResult[] }).results);

  describe('default policy (any_except_denied, rw, no rows)', function () {
    const g = gateway({ agentToolPrompt: true });
    before(() => g.boot());
    after(() => g.stop());

    it('writes then reads a file in the run folder: tool_calls records with results, observations sent to the model, the run completes', async () => {
      endpoint.script('main', [
        act('write_file', { path: 'notes/hello.txt', content: 'hello from the agent' }),
        act('read_file', { path: 'notes/hello.txt' }),
        'The file says: hello from the agent',
      ]);
      const { rootId, root, child, tools } = await g.runAgent('main', 'Write a note, then read it back.');
      expect(root.status).to.equal('completed');
      expect(root.output).to.deep.include({ response: 'The file says: hello from the agent' });
      expect(child.status).to.equal('completed');

      // The run's own folder, its marker, and the file the tool wrote.
      const folder = g.folder(rootId);
      expect(readFileSync(path.join(folder, 'notes', 'hello.txt'), 'utf8')).to.equal('hello from the agent');
      expect(JSON.parse(readFileSync(path.join(folder, '.keel-workspace.json'), 'utf8'))).to.deep.include({ kind: 'run', root_run_id: rootId });
      const input = (await g.k.inject({ url: `/api/gateway/runs/${rootId}/input_data`, token: g.k.adminToken })).json<Record<string, unknown>>();
      // The folder relative to the data directory: the absolute data path is never told to a run.
      expect(input._gateway_workspace).to.deep.equal({ kind: 'run', path: `workspaces/run-${rootId}`, level: 'gateway', summary: 'Allow everything, refuse listed workspaces (rw)' });
      // The agent child shares its root's folder.
      const childInput = (await g.k.inject({ url: `/api/gateway/runs/${child.run_id}/input_data`, token: g.k.adminToken })).json<Record<string, unknown>>();
      expect(childInput._gateway_workspace).to.deep.include({ kind: 'run', path: `workspaces/run-${rootId}` });

      // Two tool steps, each a started/completed pair with one key, on node `act`.
      expect(tools.map((t) => [t.node_id, t.status, t.attempt])).to.deep.equal([['act', 'started', 1], ['act', 'completed', 1], ['act', 'started', 1], ['act', 'completed', 1]]);
      expect(tools[1]!.step_id).to.equal(tools[0]!.step_id);
      expect(tools[1]!.idempotency_key).to.equal(tools[0]!.idempotency_key).and.not.equal(tools[3]!.idempotency_key);
      expect(tools[0]!.effect!.payload.tool_calls).to.deep.equal([{ name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello from the agent' }, call_id: 'call_1_1' }]);
      expect(tools[1]!.result).to.deep.equal({ mode: 'executed', results: [{ call_id: 'call_1_1', name: 'write_file', success: true, output: 'Wrote 20 bytes to notes/hello.txt.', error: null }] });
      expect(tools[3]!.result).to.deep.equal({ mode: 'executed', results: [{ call_id: 'call_2_1', name: 'read_file', success: true, output: 'hello from the agent', error: null }] });

      // Each observation reached the model in the next request.
      const requests = endpoint.of('main');
      expect(requests).to.have.length(3);
      // With `agentToolPrompt` the system prompt describes the allowed file tools and the format.
      expect(requests[0]!.messages[0]!.content).to.contain('Action Input:').and.contain('write_file').and.not.contain('execute_command');
      expect(requests[0]!.messages[1]).to.deep.equal({ role: 'user', content: 'Write a note, then read it back.' });
      expect(requests[1]!.messages.map((m) => m.content)).to.include('Observation (write_file): Wrote 20 bytes to notes/hello.txt.');
      expect(requests[2]!.messages.map((m) => m.content)).to.include('Observation (read_file): hello from the agent');

      // Run metrics count the tool calls of completed tool_calls records.
      const listed = (await g.k.inject({ url: `/api/gateway/runs?parent_run_id=${rootId}&include_metrics=true`, token: g.k.adminToken })).json<{ items: Array<{ metrics?: { tool_calls: number } }> }>();
      expect(JSON.stringify(listed)).to.contain('"tool_calls":2');
    });

    it('edit_file replaces exactly one occurrence and refuses a missing or ambiguous passage; list_files hides the marker', async () => {
      endpoint.script('edit', [
        act('write_file', { path: 'a.txt', content: 'one two two three' }),
        act('edit_file', { path: 'a.txt', old: 'two', new: '2' }),
        act('edit_file', { path: 'a.txt', old: 'four', new: '4' }),
        act('edit_file', { path: 'a.txt', old: 'one', new: '1' }),
        act('list_files', {}),
        'done',
      ]);
      const { rootId, root, tools } = await g.runAgent('edit');
      expect(root.status).to.equal('completed');
      expect(readFileSync(path.join(g.folder(rootId), 'a.txt'), 'utf8')).to.equal('1 two two three');
      const r = results(tools);
      expect(r.map((x) => x.success)).to.deep.equal([true, false, false, true, true]);
      expect(r[1]!.error).to.contain('occurs more than once');
      expect(r[2]!.error).to.contain('was not found');
      expect(r[4]!.output).to.equal('.:\na.txt');
    });

    it('refuses a path under the data dir (outside the run folder) with the §1.5 sentence; the run still completes', async () => {
      endpoint.script('datadir', [act('read_file', { path: path.join(g.k.dataDir, 'auth', 'admin.token') }), 'I could not read it.']);
      const { root, tools } = await g.runAgent('datadir');
      expect(root.status).to.equal('completed');
      const [r] = results(tools);
      const data = realpathSync(g.k.dataDir);
      expect(r).to.deep.include({ name: 'read_file', success: false, output: null });
      // The path as the run gave it; the folder is named because the run named it itself.
      expect(r!.error).to.equal(`${path.join(g.k.dataDir, 'auth', 'admin.token')} is inside ${data}, which ${PROTECTED}`);
      expect(endpoint.of('datadir')[1]!.messages.map((m) => m.content)).to.include(`Observation (read_file): the tool failed: ${r!.error}`);
    });

    it('resolves `..` before judging: an escape to a sibling run folder is refused, nothing is written', async () => {
      endpoint.script('dotdot', [act('write_file', { path: '../run-someone-else/x.txt', content: 'x' }), 'ok']);
      const { root, tools } = await g.runAgent('dotdot');
      expect(root.status).to.equal('completed');
      const [r] = results(tools);
      // A relative path: the data directory it leads into is not named.
      expect(r!.error).to.equal(`../run-someone-else/x.txt leads into a folder that ${PROTECTED}`);
      expect(existsSync(path.join(g.k.dataDir, 'workspaces', 'run-someone-else'))).to.equal(false);
    });

    it('judges a symlink by its real path: a link outside the data dir pointing into it is refused', async () => {
      const links = path.join(outside.dir, 'links');
      mkdirSync(links, { recursive: true });
      symlinkSync(path.join(g.k.dataDir, 'auth'), path.join(links, 'auth'));
      endpoint.script('symlink', [act('read_file', { path: path.join(links, 'auth', 'admin.token') }), 'ok']);
      const { root, tools } = await g.runAgent('symlink');
      expect(root.status).to.equal('completed');
      const [r] = results(tools);
      expect(r!.success).to.equal(false);
      expect(r!.error).to.equal(`${path.join(links, 'auth', 'admin.token')} leads into a folder that ${PROTECTED}`);
    });

    it('writes an absolute path outside the data dir (default rw); other tools of the default list stay unavailable', async () => {
      const target = path.join(outside.dir, 'free', 'out.txt');
      endpoint.script('outside', [act('write_file', { path: target, content: 'free' }), 'ok']);
      const { root, tools } = await g.runAgent('outside');
      expect(root.status).to.equal('completed');
      expect(results(tools)[0]).to.deep.include({ success: true, error: null });
      expect(readFileSync(target, 'utf8')).to.equal('free');

      endpoint.script('unavailable', [act('execute_command', { command: 'ls' }), 'ok']);
      const other = await g.runAgent('unavailable');
      expect(other.root.status).to.equal('completed');
      expect(other.tools).to.have.length(0);
      expect(endpoint.of('unavailable')[1]!.messages.map((m) => m.content)).to.include("Observation: the tool 'execute_command' is not available on this gateway. Answer without it.");
    });

    it('a tool_calls node runs the same tools in the run folder', async () => {
      await g.uploadBundle('tools', toolCallsFlow());
      const res = await g.k.inject({
        method: 'POST',
        url: '/api/gateway/runs/start',
        token: g.k.adminToken,
        payload: { bundle_id: 'tools', input_data: { calls: [{ name: 'write_file', arguments: { path: 'n.txt', content: 'node' }, call_id: 'c1' }, { name: 'fetch_url', arguments: { url: 'http://x' }, call_id: 'c2' }] } },
      });
      const rootId = res.json<{ run_id: string }>().run_id;
      const run = await until(() => g.getRun(rootId), (r) => ['completed', 'failed'].includes(r.status));
      expect(run.status).to.equal('completed');
      expect(readFileSync(path.join(g.folder(rootId), 'n.txt'), 'utf8')).to.equal('node');
      expect(run.output).to.deep.include({ success: false });
      expect(run.output!.results).to.deep.equal([
        { call_id: 'c1', name: 'write_file', success: true, output: 'Wrote 4 bytes to n.txt.', error: null },
        { call_id: 'c2', name: 'fetch_url', success: false, output: null, error: "the tool 'fetch_url' is not available on this gateway" },
      ]);
      const items = (await g.ledger(rootId)).filter((i) => i.effect?.type === 'tool_calls');
      expect(items.map((i) => i.status)).to.deep.equal(['started', 'completed']);
    });
  });

  describe('configured policy: a deny row', function () {
    const refused = path.join(outside.dir, 'secret');
    const g = gateway({}, { gatewayPolicy: { folders: [{ path: refused, mode: 'deny' }] } });
    before(async () => {
      mkdirSync(refused, { recursive: true });
      writeFileSync(path.join(refused, 'plan.txt'), 'secret plan');
      await g.boot();
    });
    after(() => g.stop());

    it('refuses a path inside the deny row with the "outside the workspaces the gateway allows" sentence', async () => {
      endpoint.script('denyrow', [act('read_file', { path: path.join(refused, 'plan.txt') }), 'ok']);
      const { root, tools } = await g.runAgent('denyrow');
      expect(root.status).to.equal('completed');
      const [r] = results(tools);
      // Without `agentToolPrompt` the system prompt is the plain one; the tools still run when asked for.
      expect(endpoint.of('denyrow')[0]!.messages[0]!.content).to.not.contain('Action Input:');
      expect(r!.error).to.equal(`${path.join(refused, 'plan.txt')} is outside the workspaces the gateway allows (Allow everything, refuse listed workspaces (rw) \u00b7 ${refused} (refused)).`);
    });
  });

  describe('configured policy: allowed_only with no rows', function () {
    const g = gateway({}, { gatewayPolicy: { posture: 'allowed_only' } });
    before(() => g.boot());
    after(() => g.stop());

    it('refuses everything outside the run folder, and still allows the run folder', async () => {
      const target = path.join(outside.dir, 'nope.txt');
      endpoint.script('allowedonly', [act('write_file', { path: target, content: 'x' }), act('list_files', { path: outside.dir }), 'ok']);
      const { root, tools } = await g.runAgent('allowedonly');
      expect(root.status).to.equal('completed');
      const r = results(tools);
      expect(r.map((x) => x.success)).to.deep.equal([false, false]);
      expect(r[0]!.error).to.equal(`${target} is outside the workspaces the gateway allows (Deny everything, allow listed workspaces).`);
      expect(existsSync(target)).to.equal(false);

      endpoint.script('allowedonly-own', [act('write_file', { path: 'mine.txt', content: 'mine' }), 'ok']);
      const own = await g.runAgent('allowedonly-own');
      expect(results(own.tools)[0]).to.deep.include({ success: true });
      expect(readFileSync(path.join(g.folder(own.rootId), 'mine.txt'), 'utf8')).to.equal('mine');
    });
  });
});
