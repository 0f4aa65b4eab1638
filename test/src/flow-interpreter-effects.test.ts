/**
 * Unit tests of gateway-runs' flow interpreter (plugins/gateway-runs/src/flow/), through its own
 * API: effects (answered by fakes), what each built-in effect node asks for, errors naming the node,
 * the node-type registry, and the run limits (RunLimits) checked the way the runtime calls them.
 */
import { expect } from 'chai';
import { effectNode, pureNode, UnsupportedNodeError } from '../../plugins/gateway-runs/dist/flow/node-types.js';
import { RunLimits, DEFAULT_RUN_LIMITS } from '../../plugins/gateway-runs/dist/runtime/run-limits.js';
import type { RunState } from '../../plugins/gateway-runs/dist/runtime/run-state.js';
import { node } from './helpers/flow-builder.js';
import { compileFlow, nodeTypes, step, temp, walk, type RunVars } from './helpers/flow-driver.js';
import { end, flow, getVar, setVar, start, throwsFrom } from './helpers/flow-shorthands.js';

describe('flow interpreter (unit): effects (answered by fakes)', () => {
  it('an effect node asks for its effect, then maps the recorded result onto its output pins', () => {
    const f = flow(
      [start(['prompt']), node({ id: 'ask', type: 'llm_call', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { temperature: 0 } } }), end(['response'])],
      ['start -> ask', 'ask -> end', 'start.prompt -> ask.prompt', 'ask.response -> end.response'],
    );
    const run = walk(f, { vars: { prompt: 'Hi', _runtime: { provider: 'local', model: 'tiny' } }, perform: () => ({ content: 'Hello!' }) });
    expect(run.effects).to.have.length(1);
    expect(run.effects[0]).to.deep.include({ node: 'ask', type: 'llm_call' });
    expect(run.effects[0]!.payload).to.deep.include({ provider: 'local', model: 'tiny', prompt: 'Hi', params: { temperature: 0 } });
    expect(run.output).to.deep.equal({ response: 'Hello!', success: true });
    expect(run.visited).to.deep.equal(['start', 'ask', 'ask', 'end']);
    // The result is consumed: a replayed step would ask again rather than reuse a stale one.
    expect(temp(run.vars).effects).to.deep.equal({});
  });

  it('agent and subflow nodes ask for a child workflow (start_subworkflow)', () => {
    const f = flow([start(), node({ id: 'child', type: 'subflow', inputs: ['topic'], outputs: ['output'], data: { subflowId: 'inner', pinDefaults: { topic: 'boats' } } }), end(['output'])], ['start -> child', 'child -> end', 'child.output -> end.output']);
    const run = walk(f, { perform: () => ({ output: { result: 'done inside' }, sub_run_id: 'r2' }) });
    expect(run.effects[0]).to.deep.include({ type: 'start_subworkflow' });
    expect(run.effects[0]!.payload).to.deep.include({ workflow_id: 'inner', vars: { topic: 'boats' } });
    expect(run.output.output).to.equal('done inside');
  });

  it("a plugin's effect node type asks for its own effect type and maps its result through outputs()", () => {
    const types = nodeTypes({
      shout: effectNode<{ text: string }, { loud: string }>({ payload: (inputs) => ({ text: String(inputs.text) }), perform: () => Promise.reject(new Error('not called here')), outputs: (r) => ({ response: r.loud }) }),
    });
    const f = flow([start(['text']), node({ id: 'say', type: 'shout', inputs: ['text'], outputs: ['response'] }), end(['response'])], ['start -> say', 'say -> end', 'start.text -> say.text', 'say.response -> end.response']);
    const run = walk(f, { types, vars: { text: 'hey' }, perform: (effect) => ({ loud: `${String((effect.payload as { text?: unknown }).text).toUpperCase()}!` }) });
    expect(run.effects.map((e) => ({ type: e.type, payload: e.payload }))).to.deep.equal([{ type: 'shout', payload: { text: 'hey' } }]);
    expect(run.output.response).to.equal('HEY!');
  });

  it("a plugin's pure node type is evaluated like a built-in", () => {
    const types = nodeTypes({ reverse: pureNode((inputs) => String(inputs.text).split('').reverse().join('')) });
    const f = flow([start(['text']), node({ id: 'rev', type: 'reverse', exec: false, inputs: ['text'] }), end(['response'])], ['start -> end', 'start.text -> rev.text', 'rev.result -> end.response']);
    expect(walk(f, { types, vars: { text: 'keel' } }).output.response).to.equal('leek');
  });
});

describe('flow interpreter (unit): what each built-in effect node asks for, and its outputs', () => {
  /** start → the one effect node `id` of `type` (inputs from pin defaults) → end with `outputs`; answers with `result`. */
  const one = (type: string, data: Record<string, unknown>, outputs: string[], result: unknown, vars: RunVars = {}) => {
    const f = flow([start(), node({ id: 'fx', type, inputs: Object.keys((data.pinDefaults as object | undefined) ?? {}), outputs, data }), end(outputs)], ['start -> fx', 'fx -> end', ...outputs.map((o) => `fx.${o} -> end.${o}`)]);
    return walk(f, { vars, perform: () => result });
  };

  it('ask_user waits on a key naming the run and the node, with a default prompt, and outputs the answer', () => {
    const run = one('ask_user', { pinDefaults: { choices: ['yes', 'no'] } }, ['response'], { response: 'yes' });
    expect(run.effects[0]!.payload).to.deep.equal({ prompt: 'Please respond:', choices: ['yes', 'no'], allow_free_text: true, wait_key: 'user:run-1:fx' });
    expect(run.output.response).to.equal('yes');
  });

  it('wait_until asks for an absolute time: a duration in its unit from now, or a timestamp as given', () => {
    const before = Date.now();
    const run = one('wait_until', { pinDefaults: { duration: 2 }, effectConfig: { durationType: 'minutes' } }, [], {});
    const until = Date.parse(String((run.effects[0]!.payload as { until?: unknown }).until));
    expect(until).to.be.within(before + 120_000, Date.now() + 120_000);
    const fixed = one('wait_until', { pinDefaults: { duration: '2030-01-02T03:04:05Z' }, effectConfig: { durationType: 'timestamp' } }, [], {});
    expect(fixed.effects[0]!.payload).to.deep.equal({ until: '2030-01-02T03:04:05.000Z' });
  });

  it('emit_event wraps a payload that is not an object, scopes to the session by default, and outputs the delivery', () => {
    const run = one('emit_event', { pinDefaults: { name: 'progress', payload: 42 } }, ['delivered'], { delivered: 2 });
    expect(run.effects[0]!.payload).to.deep.equal({ name: 'progress', scope: 'session', payload: { value: 42 }, event_id: 'run-1:fx:1', max_steps: 0 });
    expect(run.output.delivered).to.equal(2);
  });

  it('tool_calls accepts a list, one call, or a JSON string of them (anything else is no call), and succeeds only when every call did', () => {
    const call = { name: 'read_file', arguments: { path: 'a' } };
    const payloadOf = (tool_calls: unknown) => one('tool_calls', { pinDefaults: { tool_calls } }, ['results'], {}).effects[0]!.payload;
    expect(payloadOf([call])).to.deep.equal({ tool_calls: [call] });
    expect(payloadOf(call)).to.deep.equal({ tool_calls: [call] });
    expect(payloadOf(JSON.stringify([call]))).to.deep.equal({ tool_calls: [call] });
    expect(payloadOf('not json')).to.deep.equal({ tool_calls: [] });
    expect(one('tool_calls', { pinDefaults: { tool_calls: [call] } }, ['success'], { results: [{ success: true }, { success: false }] }).output.success).to.equal(false);
    expect(one('tool_calls', { pinDefaults: { tool_calls: [call] } }, ['success'], { results: [{ success: true }] }).output.success).to.equal(true);
  });

  it('answer_user maps the levels warn and info to warning and message', () => {
    expect(one('answer_user', { pinDefaults: { message: 'careful', level: 'warn' } }, [], {}).effects[0]!.payload).to.deep.equal({ message: 'careful', level: 'warning' });
    expect(one('answer_user', { pinDefaults: { message: 'fyi', level: 'info' } }, [], {}).effects[0]!.payload).to.deep.equal({ message: 'fyi', level: 'message' });
  });

  it("llm_call with context sends the leading system messages, its own system prompt, the history, then the prompt; the run's _runtime model wins over the node's", () => {
    const history = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }];
    const run = one('llm_call', { pinDefaults: { prompt: 'and now?', system: 'be kind', provider: 'node-p', model: 'node-m' }, effectConfig: { include_context: true } }, ['response'], { content: 'ok' }, { context: { messages: history }, _runtime: { provider: 'run-p', model: 'run-m' } });
    expect(run.effects[0]!.payload).to.deep.include({
      provider: 'run-p',
      model: 'run-m',
      include_context: true,
      messages: [{ role: 'system', content: 'be brief' }, { role: 'system', content: 'be kind' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'and now?' }],
    });
    const own = one('llm_call', { pinDefaults: { prompt: 'x', provider: 'node-p', model: 'node-m' } }, ['response'], { data: { a: 1 } });
    expect(own.effects[0]!.payload).to.deep.include({ provider: 'node-p', model: 'node-m', prompt: 'x', system_prompt: null });
    // A structured answer is the response, as JSON text.
    expect(own.output.response).to.equal('{"a":1}');
  });
});

describe('flow interpreter (unit): errors name the node', () => {
  it('a node type no loaded plugin provides: the node and its type, and the plugin when one is known to provide it', () => {
    const unknown = throwsFrom(() => walk(flow([start(), node({ id: 'odd', type: 'quantum_teleport' }), end([])], ['start -> odd', 'odd -> end'])));
    expect(unknown).to.be.instanceOf(UnsupportedNodeError);
    expect(unknown.message).to.equal("node 'odd' has type 'quantum_teleport', which no loaded plugin provides.");
    const image = throwsFrom(() => walk(flow([start(), node({ id: 'paint', type: 'generate_image' }), end([])], ['start -> paint', 'paint -> end'])));
    expect(image.message).to.equal("node 'paint' has type 'generate_image', which the 'vision' plugin provides; that plugin is not loaded (add it to the config's plugins).");
  });

  it('an unknown pure node read through a data edge names that node', () => {
    const err = throwsFrom(() => walk(flow([start(), node({ id: 'mystery', type: 'not_a_helper', exec: false, outputs: ['value'] }), end(['response'])], ['start -> end', 'mystery.value -> end.response'])));
    expect(err.message).to.contain("node 'mystery' has type 'not_a_helper'");
  });

  it('a data cycle names a node on it', () => {
    const f = flow(
      [start(), node({ id: 'p', type: 'concat', exec: false, inputs: ['a'] }), node({ id: 'q', type: 'concat', exec: false, inputs: ['a'] }), end(['response'])],
      ['start -> end', 'p.result -> q.a', 'q.result -> p.a', 'p.result -> end.response'],
    );
    expect(throwsFrom(() => walk(f)).message).to.match(/^data cycle through node '(p|q)'$/);
  });

  it('an effect node type used without exec pins names the node and says to connect it', () => {
    const types = nodeTypes({ shout: effectNode({ payload: () => ({}), perform: async () => ({}) }) });
    const f = flow([start(), node({ id: 'loose', type: 'shout', exec: false, outputs: ['response'] }), end(['response'])], ['start -> end', 'loose.response -> end.response']);
    expect(throwsFrom(() => walk(f, { types })).message).to.equal("node 'loose' has type 'shout', an effect node, but no execution pins: connect it to the exec flow");
  });

  it('a helper that throws (parse_json of text that is not JSON) throws out of the step that reads it', () => {
    const f = flow([start(['text']), node({ id: 'parse', type: 'parse_json', inputs: ['text'] }), end([])], ['start -> parse', 'parse -> end', 'start.text -> parse.text']);
    const compiled = compileFlow(f);
    const vars: RunVars = { text: 'not json' };
    step(compiled, vars, 'start', 'run-1', nodeTypes());
    expect(() => step(compiled, vars, 'parse', 'run-1', nodeTypes())).to.throw('Invalid JSON: ');
  });
});

describe('flow interpreter (unit): the node-type registry', () => {
  it('refuses a type registered twice, naming both plugins, an empty name, and registration after start', () => {
    const types = nodeTypes();
    expect(() => types.register('vision', { concat: pureNode(() => '') })).to.throw("node type 'concat' is registered by both 'gateway-runs' and 'vision'.");
    expect(() => types.register('vision', { llm_call: pureNode(() => '') })).to.throw("node type 'llm_call' is registered by both 'gateway-runs' and 'vision'.");
    expect(() => types.register('vision', { '': pureNode(() => '') })).to.throw("plugin 'vision' registered a node type with an empty name.");
    types.register('vision', { generate_image: effectNode({ payload: () => ({}), perform: async () => ({}) }) });
    expect(types.ownerOf('generate_image')).to.equal('vision');
    types.close('the kernel started');
    expect(() => types.register('late', { x: pureNode(() => '') })).to.throw("plugin 'late' registered node types after the kernel started; register them in setup.");
  });
});

describe('flow interpreter (unit): run limits, as the runtime checks them after each step', () => {
  const runState = (vars: RunVars, builtin: string | null = null) => ({ run_id: 'run-1', vars, builtin, steps: 0 }) as unknown as RunState;
  const endless = () =>
    flow([start(), node({ id: 'spin', type: 'while', inputs: ['condition'], outputs: ['index'], data: { pinDefaults: { condition: true } } }), setVar('count', 'n', 1), end([])], ['start -> spin', 'spin:loop -> count', 'spin:done -> end']);

  it('stops an endless while after maxSteps, naming the node and the setting', () => {
    const limits = new RunLimits({ ...DEFAULT_RUN_LIMITS, maxSteps: 50 });
    const vars: RunVars = {};
    const run = runState(vars);
    const err = throwsFrom(() => walk(endless(), { vars, afterStep: (id, outcome) => limits.afterStep(run, id, outcome.kind === 'goto' ? outcome.output : null) }));
    expect(err.message).to.match(/^The run took more than 50 steps at node '(spin|count)', the most one run may take \(setting `limits\.maxSteps` of the gateway-runs plugin\)\.$/);
    expect(run.steps).to.equal(51);
  });

  it('exempts scheduler runs from maxSteps', () => {
    const limits = new RunLimits({ ...DEFAULT_RUN_LIMITS, maxSteps: 2 });
    const run = runState({}, 'scheduler');
    for (let i = 0; i < 5; i++) expect(limits.afterStep(run, 'tick', null)).to.equal(null);
  });

  it('stops a run whose variables grow past maxVarsBytes, naming the node', () => {
    const limits = new RunLimits({ ...DEFAULT_RUN_LIMITS, maxVarsBytes: 10_000 });
    const f = flow(
      [start(), node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 1000, step: 1 } } }), getVar('s', 's'), node({ id: 'twice', type: 'concat', exec: false, inputs: ['a', 'b'], data: { concatConfig: { separator: '' } } }), node({ id: 'double', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 's' } } }), end([])],
      ['start -> loop', 'loop:loop -> double', 'loop:done -> end', 's.value -> twice.a', 's.value -> twice.b', 'twice.result -> double.value'],
    );
    const vars: RunVars = { s: 'ab' };
    const run = runState(vars);
    const err = throwsFrom(() => walk(f, { vars, afterStep: (id, outcome) => limits.afterStep(run, id, outcome.kind === 'goto' ? outcome.output : null) }));
    expect(err.message).to.match(/^The run's variables grew larger than .+ at node 'double', the most one run may hold \(setting `limits\.maxVarsBytes` of the gateway-runs plugin\)\.$/);
    expect(String(vars.s).length).to.be.below(20_000);
  });

  it('stops a run whose values nest deeper than maxVarsDepth', () => {
    const limits = new RunLimits({ ...DEFAULT_RUN_LIMITS, maxVarsDepth: 8 });
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10; i++) deep = [deep];
    const run = runState({ deep });
    expect(limits.afterStep(run, 'nest', deep)).to.match(/^The run's variables nest arrays and objects more than 8 levels deep at node 'nest'/);
  });

  it('stops a run that spent more than maxRunCpuMs stepping, counting across calls', () => {
    const limits = new RunLimits({ ...DEFAULT_RUN_LIMITS, maxRunCpuMs: 1000 });
    const run = runState({});
    expect(limits.afterCpu(run, 'a', 600)).to.equal(null);
    expect(limits.afterCpu(run, 'b', 600)).to.equal("The run spent more than 1 s of processing time stepping at node 'b', the most one run may spend (setting `limits.maxRunCpuMs` of the gateway-runs plugin).");
  });
});
