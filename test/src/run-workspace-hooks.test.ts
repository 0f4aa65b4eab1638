import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'chai';
import { badRequest, definePlugin, route } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { effectNode, gatewayRunsPlugin, nodeTypesToken, runHooksToken, runsDirectoryToken, type ProducedFile } from '@keel/plugin-gateway-runs';
import { bundle, edges, multipart, node, toolCallsFlow } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

/**
 * Contract 2 of issue 12 through the front door: a plugin that depends on `runs.directory` and
 * `runs.hooks` refuses starts, hears about files the agent's file tools wrote, and asks who may
 * see a run.
 */

const produced: ProducedFile[] = [];

const probePlugin = definePlugin({
  id: 'runs-probe',
  version: '0.1.0',
  sdk: '^1.0.0',
  defaultPrefix: '/api/probe',
  deps: { directory: runsDirectoryToken, hooks: runHooksToken, nodeTypes: nodeTypesToken },
  setup({ deps }) {
    // A media-like node: renders a file into the run's workspace and announces it (and tries to announce a file outside).
    deps.nodeTypes.register('runs-probe', {
      probe_render: effectNode<{ name: string }, { path: string }>({
        payload: (inputs) => ({ name: String(inputs.name ?? 'out.png') }),
        perform: async (payload, ctx) => {
          const root = await ctx.workspaceRoot();
          const file = path.join(root, 'renders', payload.name);
          await mkdir(path.dirname(file), { recursive: true });
          await writeFile(file, Buffer.from([0x89, 0x50, 0x4e, 0x47]));
          ctx.fileProduced(file, 'image/png');
          ctx.fileProduced('/etc/passwd', 'text/plain');
          return { path: `renders/${payload.name}` };
        },
      }),
    });
    deps.hooks.addStartCheck(async ({ inputData, sessionId }) => {
      if (inputData.refuse_me === true) throw badRequest({ reason: 'probe_refused', message: `The probe refuses this start (session ${sessionId ?? 'none'}).` });
    });
    deps.hooks.onFileProduced((file) => {
      produced.push(file);
    });
    deps.hooks.onFileProduced(() => {
      throw new Error('a failing listener never fails the run');
    });
    return {
      routes: [
        route({
          method: 'GET',
          path: '/runs/:run_id',
          handler: async ({ params, principal }) => ({ run: await deps.directory.visibleRun(principal, (params as { run_id: string }).run_id) }),
        }),
        route({
          method: 'GET',
          path: '/sessions/:session_id',
          handler: async ({ params, principal }) => ({ exists: await deps.directory.sessionExists(principal.account, (params as { session_id: string }).session_id) }),
        }),
      ],
    };
  },
});

describe('runs.directory and runs.hooks (issue 12, Contract 2)', function () {
  this.timeout(120_000);
  let k: TestKernel;
  let bob = '';
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, probePlugin] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    bob = created.json<{ token: { token: string } }>().token.token;
    const body = multipart({}, { name: 'tools.flow', bytes: bundle('tools', '1.0.0', toolCallsFlow()) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    const render = {
      id: 'render',
      nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['name'] }), node({ id: 'draw', type: 'probe_render', inputs: ['name'], outputs: ['path'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['path'] })],
      edges: edges('start -> draw', 'draw -> end', 'start.name -> draw.name', 'draw.path -> end.path'),
    };
    const second = multipart({}, { name: 'render.flow', bytes: bundle('render', '1.0.0', render) });
    expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: second.payload, headers: second.headers })).statusCode).to.equal(201);
  });
  after(() => k?.stop());

  const start = (payload: Record<string, unknown>) => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'tools', ...payload } });

  it('runs the start checks before anything is stored: a refusal answers its 400 and leaves no run', async () => {
    const before = (await k.inject({ url: '/api/gateway/runs', token: bob })).json<{ items: unknown[] }>().items.length;
    const res = await start({ session_id: 's-refused', input_data: { refuse_me: true, calls: [] } });
    expect(res.statusCode, res.body).to.equal(400);
    expect(res.json<{ detail: unknown }>().detail).to.deep.equal({ reason: 'probe_refused', message: 'The probe refuses this start (session s-refused).' });
    expect((await k.inject({ url: '/api/gateway/runs', token: bob })).json<{ items: unknown[] }>().items.length).to.equal(before);
    expect((await k.inject({ url: '/api/probe/sessions/s-refused', token: bob })).json<{ exists: boolean }>().exists).to.equal(false);
  });

  it('tells listeners about each file write_file and edit_file wrote, with the node and the ledger cursor of the step', async () => {
    produced.length = 0;
    const calls = [
      { call_id: 'w', name: 'write_file', arguments: { path: 'notes/a.txt', content: 'hello' } },
      { call_id: 'e', name: 'edit_file', arguments: { path: 'notes/a.txt', old: 'hello', new: 'bye' } },
      { call_id: 'r', name: 'read_file', arguments: { path: 'notes/a.txt' } },
      { call_id: 'refused', name: 'write_file', arguments: { path: '/etc/keel-probe.txt', content: 'x' } },
    ];
    const res = await start({ session_id: 's-files', input_data: { calls } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: bob })).json<RunRecord>(), (r) => r.status === 'completed', 60_000);
    expect(run.status).to.equal('completed');
    await until(async () => produced.length, (n) => n >= 1, 30_000);
    expect(produced).to.have.length(1);
    const file = produced[0]!;
    expect(file).to.include({ account: 'bob', run_id: runId, root_run_id: runId, session_id: 's-files', node_id: 'run_tools', rel_path: 'notes/a.txt' });
    expect(file.real_path.endsWith('/notes/a.txt')).to.equal(true);
    const ledger = (await k.inject({ url: `/api/gateway/runs/${runId}/ledger?limit=100`, token: bob })).json<{ items: LedgerItem[] }>().items;
    const done = ledger.find((r) => r.node_id === 'run_tools' && r.status === 'completed') as (LedgerItem & { cursor?: number }) | undefined;
    expect(done, 'the completed tool step').to.not.equal(undefined);
    expect(file.ledger_cursor).to.be.a('number');
    expect(ledger.some((r) => (r as { cursor?: number }).cursor === file.ledger_cursor && r.status === 'completed'), 'the cursor is the completed record').to.equal(true);
  });

  it("answers runs.directory: bob sees his run and session, another account's run is null, an admin sees it", async () => {
    const res = await start({ session_id: 's-dir', input_data: { calls: [] } });
    const runId = res.json<{ run_id: string }>().run_id;
    const mine = (await k.inject({ url: `/api/probe/runs/${runId}`, token: bob })).json<{ run: Record<string, unknown> | null }>().run;
    expect(mine).to.include({ run_id: runId, root_run_id: runId, parent_run_id: null, account: 'bob', session_id: 's-dir', workflow_id: 'tools@1.0.0:tools' });
    expect((mine!.workspace as { kind: string; path: string }).path).to.be.a('string');
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'eve' } });
    const eve = created.json<{ token: { token: string } }>().token.token;
    expect((await k.inject({ url: `/api/probe/runs/${runId}`, token: eve })).json<{ run: unknown }>().run).to.equal(null);
    expect((await k.inject({ url: '/api/probe/sessions/s-dir', token: eve })).json<{ exists: boolean }>().exists).to.equal(false);
    expect((await k.inject({ url: '/api/probe/sessions/s-dir', token: bob })).json<{ exists: boolean }>().exists).to.equal(true);
    expect((await k.inject({ url: `/api/probe/runs/${runId}`, token: k.adminToken })).json<{ run: { run_id: string } }>().run.run_id).to.equal(runId);
    expect((await k.inject({ url: '/api/probe/runs/no-such-run', token: bob })).json<{ run: unknown }>().run).to.equal(null);
  });

  it("tells listeners about a file a plugin's effect node wrote into the run's workspace (with its content type), never one outside", async () => {
    produced.length = 0;
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'render', session_id: 's-render', input_data: { name: 'cat.png' } } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: bob })).json<RunRecord>(), (r) => r.status === 'completed' || r.status === 'failed', 60_000);
    expect(run.status, run.error ?? '').to.equal('completed');
    await until(async () => produced.length, (n) => n >= 1, 30_000);
    expect(produced).to.have.length(1);
    expect(produced[0]).to.include({ run_id: runId, session_id: 's-render', node_id: 'draw', rel_path: 'renders/cat.png', content_type: 'image/png' });
    expect(produced[0]!.ledger_cursor).to.be.a('number');
    const listed = (await k.inject({ url: `/api/gateway/runs/${runId}/workspace/files?recursive=true`, token: bob })).json<{ entries: Array<{ path: string }> }>();
    expect(listed.entries.map((e) => e.path)).to.include('renders/cat.png');
  });
});

