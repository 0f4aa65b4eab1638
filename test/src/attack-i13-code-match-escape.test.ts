/**
 * Attack (issue 13): the code sandbox's static checks look for dunder names only in attribute
 * expressions (`x.__globals__`), but a `match` class pattern reads attributes by name too:
 * `case F(__globals__=g)` by keyword, or positionally through the `__match_args__` of a class made
 * with `type(name, bases, dict)` (whose `__instancecheck__` can match any object). Either handed a
 * non-admin account the driver's globals, the real builtins, `__import__` and through `ctypes`
 * the worker's JavaScript. Tried through the simulate route and through a run, as a non-admin account.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { edges, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';

const KEYWORD_ESCAPE = 'F = type(print)\nmatch print:\n    case F(__globals__=g):\n        return sorted(g)\nreturn "no match"';
const POSITIONAL_ESCAPE = [
  'M = type("M", (type,), {"__instcheck__".replace("inst", "__instance") + "__": lambda c, o: True})',
  'T = M("T", (), {"__match_args__": ("__globals__",)})',
  'match print:',
  '    case T(g):',
  '        return sorted(g)',
  'return "no match"',
].join('\n');
const METACLASS_ESCAPE = 'M = type(type(int))\nreturn str(M("T", (), {}))';

describe('attack i13: match class patterns read dunder attributes past the code sandbox checks', function () {
  this.timeout(600_000);
  let k: TestKernel;
  let eve = '';

  const simulate = async (code: string) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: eve, payload: { code: `def transform(_input):\n${code.replace(/^/gm, '    ')}` } });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ success: boolean; output: unknown; error: string | null }>();
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: 20_000 } }] });
    eve = await createAccount(k, 'eve');
  });
  after(() => k?.stop());

  it('refuses a dunder attribute named as a class pattern keyword (simulate)', async () => {
    const answer = await simulate(KEYWORD_ESCAPE);
    expect(answer.success, JSON.stringify(answer)).to.equal(false);
    expect(answer.error).to.equal("Access to dunder attributes ('__globals__') is not allowed");
  });

  it('refuses new classes (type with three arguments, or through the metaclass), so no __match_args__ reads any attribute', async () => {
    for (const code of [POSITIONAL_ESCAPE, METACLASS_ESCAPE]) {
      const answer = await simulate(code);
      expect(answer.success, `${code} → ${JSON.stringify(answer)}`).to.equal(false);
      expect(answer.error).to.equal('Runtime error: type() takes exactly one argument in the sandbox (no new classes)');
    }
    // The sandbox's type is shared by every call, as the real one is: nothing can be set on it.
    const planted = await simulate('type.mro = lambda: 1\nreturn 1');
    expect(planted).to.deep.include({ success: false, error: "Runtime error: cannot set 'mro' attribute of immutable type 'type'" });
    // type() with one argument still answers as the origin's does.
    const plain = await simulate('return [type(1) == int, type("a") is str, isinstance(int, type), type(int) is type, str(type(1.5))]');
    expect(plain).to.deep.include({ success: true, output: [true, true, true, true, "<class 'float'>"] });
  });

  it("a non-admin account's run with the escape ends with the node's failure, not the driver's globals", async () => {
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'code', type: 'code', inputs: ['permissions'], outputs: ['output', 'success'], data: { codeBody: KEYWORD_ESCAPE } }),
      ],
      edges: edges('start -> code'),
    };
    await uploadBundleAs(k, eve, 'escape', flow);
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: eve, payload: { bundle_id: 'escape', input_data: {} } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ method: 'GET', url: `/api/gateway/runs/${runId}`, token: eve })).json<RunRecord>(), (r) => r.status !== 'running' && r.status !== 'waiting', 300_000);
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.output).to.deep.include({ success: false, error: "Access to dunder attributes ('__globals__') is not allowed", node: 'code' });
    expect(JSON.stringify(run.output)).not.to.contain('_real_builtins');
  });
});
