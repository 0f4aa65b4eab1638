/**
 * The `code` node (runtime-nodes §4 and its §11 checklist line) through the HTTP API: flows built
 * here, uploaded as bundles, run on the real boot path with the code plugin, read back from
 * `GET /runs/{id}` and its ledger.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';
/** Effect records of the `code` node (the run's own end records carry the last node's id too, without an effect). */
const ownRecords = (items: LedgerItem[], nodeId: string) => items.filter((rec) => rec.node_id === nodeId && rec.effect?.type === 'code');
type Flow = { id: string; nodes: unknown[]; edges: unknown[] };

/** A `code` node with the template's pins plus `inputs`, and `data` (codeBody, code, functionName, pinDefaults). */
const codeNode = (id: string, data: Record<string, unknown>, inputs: string[] = ['input'], outputs: string[] = []) =>
  node({ id, type: 'code', inputs: [...inputs, 'permissions'], outputs: ['output', 'success', 'execution', 'result', ...outputs], data });

/** start(x) → code → end(<pins>), the end reading the code node's pins. */
function throughEnd(id: string, code: ReturnType<typeof node>, pins: string[], startOutputs = ['x'], extraEdges: string[] = []): Flow {
  return {
    id,
    nodes: [node({ id: 'start', type: 'on_flow_start', outputs: startOutputs }), code, node({ id: 'end', type: 'on_flow_end', inputs: pins })],
    edges: edges('start -> code', 'code -> end', ...pins.map((p) => `code.${p} -> end.${p}`), ...extraEdges),
  };
}

/** start(x) → code, the code node last: the run ends with its raw return. */
function codeLast(id: string, code: ReturnType<typeof node>, extraEdges: string[] = []): Flow {
  return { id, nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['x'] }), code], edges: edges('start -> code', ...extraEdges) };
}

describe('flow: the code node (Python in the Pyodide sandbox)', function () {
  this.timeout(300_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  let uploaded = 0;
  /** Uploads `flow` as a new bundle, runs it with `input` and waits for its end. */
  const run = async (flow: Flow, input: Record<string, unknown> = {}) => {
    const bundleId = `code-${++uploaded}`;
    await api.uploadBundle(bundleId, flow);
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: input } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    return { runId, run: await until(() => api.getRun(runId), ended, 240_000) };
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, codePlugin] });
  });
  after(() => k?.stop());

  it('checklist: codeBody with pin locals; a returned dict exposed as pins plus output/result/success/execution; no ledger record', async () => {
    const code = codeNode('code', {
      codeBody: '    total = 0\n    for v in values:\n        total += v\n    return {"total": total, "label": my_pin + "!", "x": _input.get("x"), "keys": sorted(_input.keys())}',
      pinDefaults: { values: [1, 2, 3] },
    }, ['values', 'my-pin'], ['total', 'label']);
    const flow = throughEnd('pins', code, ['total', 'label', 'output', 'result', 'success', 'execution'], ['x', 'greeting'], ['start.greeting -> code.my-pin']);
    const { runId, run: r } = await run(flow, { x: 5, greeting: 'hi' });
    expect(r.status, String(r.error)).to.equal('completed');
    const value = { total: 6, label: 'hi!', x: 5, keys: ['greeting', 'my-pin', 'values', 'x'] };
    expect(r.output).to.deep.include({ total: 6, label: 'hi!', output: value, result: value, success: true });
    const execution = r.output!.execution as Record<string, unknown>;
    expect(execution.permissions).to.equal('sandbox');
    for (const key of ['duration_ms', 'cpu_time_ms', 'memory_rss_mb', 'memory_rss_delta_mb']) expect(execution[key], key).to.be.a('number');
    expect(ownRecords(await api.ledger(runId), 'code')).to.deep.equal([]);
  });

  it('names pin locals as the origin does: keyword + _, leading digit p_, other characters _', async () => {
    const code = codeNode('code', { codeBody: 'return [class_, p_2nd, a_b_c, input]' }, ['class', '2nd', 'a b-c', 'input']);
    const flow = throughEnd('locals', code, ['output'], ['k', 'd', 's', 'i'], ['start.k -> code.class', 'start.d -> code.2nd', 'start.s -> code.a b-c', 'start.i -> code.input']);
    const { run: r } = await run(flow, { k: 'K', d: 'D', s: 'S', i: 'I' });
    expect(r.status, String(r.error)).to.equal('completed');
    expect(r.output!.output).to.deep.equal(['K', 'D', 'S', 'I']);
  });

  it('runs the legacy `code` source with its functionName, and falls back to transform for an invalid name', async () => {
    const legacy = codeNode('code', { code: 'SCALE = 10\n\ndef helper(v):\n    return v * SCALE\n\ndef shape(_input):\n    return helper(_input["x"])\n', functionName: 'shape' });
    const { run: a } = await run(throughEnd('legacy', legacy, ['output']), { x: 4 });
    expect(a.output).to.deep.include({ output: 40 });
    const keyword = codeNode('code', { codeBody: 'return "ran"', functionName: 'class' });
    const { run: b } = await run(throughEnd('kw', keyword, ['output']), { x: 1 });
    expect(b.output).to.deep.include({ output: 'ran' });
  });

  it('an empty codeBody returns _input (the node inputs without permissions); a codeBody wins over code', async () => {
    const code = codeNode('code', { codeBody: '', code: 'def transform(_input):\n    return "legacy"\n', pinDefaults: { permissions: 'sandbox', input: 'in' } });
    const { run: r } = await run(throughEnd('empty', code, ['output']), { x: 2 });
    expect(r.output!.output).to.deep.equal({ x: 2, input: 'in' });
  });

  it('as the last node the run ends with the raw return: a dict plus success, a scalar as response', async () => {
    const dict = await run(codeLast('last-dict', codeNode('code', { codeBody: 'return {"a": x * 2}' }, ['x']), ['start.x -> code.x']), { x: 21 });
    expect(dict.run.output).to.deep.equal({ a: 42, success: true });
    const scalar = await run(codeLast('last-scalar', codeNode('code', { codeBody: 'return "plain"' })), {});
    expect(scalar.run.output).to.deep.equal({ response: 'plain', success: true });
  });

  it('checklist: an import ends the run completed with the failure record and the node', async () => {
    const { runId, run: r } = await run(codeLast('import', codeNode('code', { codeBody: 'import os\nreturn 1' })));
    expect(r.status).to.equal('completed');
    expect(r.output).to.deep.include({ success: false, output: null, result: null, error: 'Imports are not allowed', node: 'code' });
    expect(r.output!.execution).to.be.an('object');
    expect(ownRecords(await api.ledger(runId), 'code')).to.deep.equal([]);
  });

  it('checklist: `except Exception` after a raise → Runtime error: name \'Exception\' is not defined; a bare except works', async () => {
    const failing = await run(codeLast('exc', codeNode('code', { codeBody: 'try:\n    1 / 0\nexcept Exception:\n    return "caught"' })));
    expect(failing.run.output).to.deep.include({ success: false, error: "Runtime error: name 'Exception' is not defined", node: 'code' });
    const bare = await run(codeLast('bare', codeNode('code', { codeBody: 'try:\n    1 / 0\nexcept:\n    return "caught"' })));
    expect(bare.run.output).to.deep.equal({ response: 'caught', success: true });
  });

  it('checklist: full_access without the host setting → the policy error; an unknown mode → its error', async () => {
    const full = await run(codeLast('full', codeNode('code', { codeBody: 'return 1', pinDefaults: { permissions: 'Full-Access' } })));
    expect(full.run.output).to.deep.include({ success: false, node: 'code' });
    expect(String(full.run.output!.error)).to.match(/^full_access code execution is disabled by host policy\. Set the code plugin's allowFullAccess setting/);
    const odd = await run(codeLast('odd', codeNode('code', { codeBody: 'return 1', pinDefaults: { permissions: 'root' } })));
    expect(odd.run.output).to.deep.include({ success: false, error: "Unsupported code execution permissions: 'root'", node: 'code' });
  });

  it('the static checks and error texts of the origin', async () => {
    const cases: Array<[string, Record<string, unknown>, string | RegExp]> = [
      ['syntax', { codeBody: 'return (' }, /^Syntax error: /],
      ['eval', { codeBody: 'return eval("1")' }, "'eval' is not allowed"],
      ['dunder', { codeBody: 'return x.__class__' }, "Access to dunder attributes ('__class__') is not allowed"],
      ['module', { code: 'raise_here = 1 / 0\ndef transform(_input):\n    return 1\n' }, 'Execution error: division by zero'],
      ['missing', { code: 'def other(_input):\n    return 1\n' }, "Function 'transform' not defined in code"],
      ['notcallable', { code: 'transform = 3\n' }, "'transform' is not a callable function"],
      ['repr', { codeBody: 'return repr(1)' }, "Runtime error: name 'repr' is not defined"],
      ['getattr', { codeBody: 'return getattr(1, "real")' }, "Runtime error: name 'getattr' is not defined"],
    ];
    for (const [name, data, error] of cases) {
      const { run: r } = await run(codeLast(`check-${name}`, codeNode('code', data)));
      expect(r.status, name).to.equal('completed');
      expect(r.output!.success, name).to.equal(false);
      expect(r.output!.node, name).to.equal('code');
      if (typeof error === 'string') expect(r.output!.error, name).to.equal(error);
      else expect(String(r.output!.error), name).to.match(error);
    }
  });

  it('what the fallback sandbox allows: item assignment, +=, f-strings, %, str.format, comprehensions, helpers, print as a no-op', async () => {
    const code = codeNode('code', {
      code: [
        'LIMIT = 3',
        'def double(v):',
        '    return v * 2',
        'def transform(_input):',
        '    d = {}',
        '    d["a"] = 1',
        '    d["a"] += 1',
        '    print("ignored")',
        '    items = [double(i) for i in range(LIMIT)]',
        '    return {"d": d, "items": items, "f": f"{1.5:.1f}", "p": "%s-%d" % ("x", 2), "s": "{}+{}".format(1, 2), "t": str(True), "n": str(None)}',
        '',
      ].join('\n'),
    });
    const { run: r } = await run(throughEnd('allowed', code, ['output']));
    expect(r.output!.output).to.deep.equal({ d: { a: 2 }, items: [0, 2, 4], f: '1.5', p: 'x-2', s: '1+2', t: 'True', n: 'None' });
  });

  it('a failing code node stops the flow: nothing after it runs', async () => {
    const flow: Flow = {
      id: 'stops',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        codeNode('code', { codeBody: 'return 1 / 0' }),
        node({ id: 'after', type: 'answer_user', inputs: ['message'], outputs: ['message'], data: { pinDefaults: { message: 'never' } } }),
      ],
      edges: edges('start -> code', 'code -> after'),
    };
    const { runId, run: r } = await run(flow);
    expect(r.output).to.deep.include({ success: false, error: 'Runtime error: division by zero', node: 'code' });
    expect((await api.ledger(runId)).filter((rec) => rec.node_id === 'after')).to.deep.equal([]);
  });

  it('runs on every visit inside a loop (no reuse of an earlier result)', async () => {
    const flow: Flow = {
      id: 'loop',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: ['items'] }),
        node({ id: 'each', type: 'loop', inputs: ['items'], outputs: ['item', 'index'] }),
        codeNode('code', { codeBody: 'return item * 10' }, ['item']),
        node({ id: 'keep', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'last' } } }),
        node({ id: 'get', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'last' } } }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['last'] }),
      ],
      edges: edges('start -> each', 'each:loop -> code', 'code -> keep', 'each:done -> end', 'start.items -> each.items', 'each.item -> code.item', 'code.output -> keep.value', 'get.value -> end.last'),
    };
    const { run: r } = await run(flow, { items: [1, 2, 3] });
    expect(r.status, String(r.error)).to.equal('completed');
    expect(r.output).to.deep.include({ last: 30 });
  });

  it('publishes code_execution_policy_v1 and simulates a code node without a run (origin\'s example), with the same checks', async () => {
    const policy = await k.inject({ url: '/api/gateway/visualflows/code/policy', token: k.adminToken });
    expect(policy.statusCode).to.equal(200);
    const body = policy.json<{ contract: string; default_mode: string; simulate: { endpoint: string }; modes: Array<{ id: string; available: boolean }> }>();
    expect(body).to.include({ contract: 'code_execution_policy_v1', default_mode: 'sandbox' });
    expect(body.simulate.endpoint).to.equal('/api/gateway/visualflows/code/simulate');
    expect(Object.fromEntries(body.modes.map((m) => [m.id, m.available]))).to.deep.equal({ sandbox: true, full_access: false });

    const simulate = (payload: Record<string, unknown>, token: string | null = k.adminToken) => k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: token ?? undefined, payload });
    const ok = await simulate({ code: "def transform(_input):\n    return {'x': _input.get('x') + 1}\n", input: { x: 2 }, function_name: 'transform', permissions: 'sandbox' });
    expect(ok.statusCode, ok.body).to.equal(200);
    const answer = ok.json<Record<string, unknown> & { execution: Record<string, unknown>; diagnostics: Record<string, unknown> }>();
    expect(answer).to.deep.include({ ok: true, success: true, output: { x: 3 }, error: null });
    expect(answer.execution.permissions).to.equal('sandbox');
    expect(answer.execution.duration_ms).to.be.at.least(0);
    expect(answer.diagnostics.requested_mode).to.equal('sandbox');

    const imported = (await simulate({ code: 'import os\ndef transform(_input):\n    return 1\n' })).json<Record<string, unknown>>();
    expect(imported).to.deep.include({ ok: true, success: false, output: null, error: 'Imports are not allowed' });
    const full = await simulate({ code: 'def transform(_input):\n    return 1\n', permissions: 'full_access' });
    expect(full.statusCode).to.equal(403);
    expect(full.json<{ detail: string }>().detail).to.match(/^full_access code execution is disabled by host policy/);
    const odd = await simulate({ code: 'def transform(_input):\n    return 1\n', permissions: 'root' });
    expect(odd.statusCode).to.equal(400);
    expect(odd.json<{ detail: string }>().detail).to.equal("Unsupported code execution permissions: 'root'; use 'sandbox' or 'full_access'.");
    expect((await simulate({ code: 'def transform(_input):\n    return 1\n' }, null)).statusCode).to.equal(401);
  });
});

describe('flow: the code node budgets count only the call itself', function () {
  this.timeout(300_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  before(async () => {
    // A budget far below Pyodide's load time, and one worker for three runs at once.
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: 1_000, maxWorkers: 1 } }] });
    await api.uploadBundle('budget', codeLast('budget', codeNode('code', { codeBody: 'total = 0\nfor i in range(1000):\n    total += i\nreturn {"total": total, "x": x}' }, ['x']), ['start.x -> code.x']));
  });
  after(() => k?.stop());

  it('neither the load of Pyodide nor the wait for a busy worker counts against timeoutMs', async () => {
    const ids = await Promise.all([1, 2, 3].map(async (x) => {
      const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'budget', input_data: { x } } });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ run_id: string }>().run_id;
    }));
    const runs = await Promise.all(ids.map((id) => until(() => api.getRun(id), ended, 240_000)));
    expect(runs.map((r) => r.output)).to.deep.equal([1, 2, 3].map((x) => ({ total: 499500, x, success: true })));
  });
});

describe('flow: a code node without the code plugin', function () {
  this.timeout(120_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  it('fails at start naming the plugin that provides it', async () => {
    await api.uploadBundle('no-code', codeLast('no-code', codeNode('code', { codeBody: 'return 1' })));
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'no-code', input_data: {} } });
    expect(res.statusCode, res.body).to.equal(200);
    const run = await until(() => api.getRun(res.json<{ run_id: string }>().run_id), ended, 60_000);
    expect(run.status).to.equal('failed');
    expect(run.error).to.equal("node 'code' has type 'code', which the 'code' plugin provides; that plugin is not loaded (add it to the config's plugins).");
  });
});
