/**
 * Unit tests of gateway-runs' flow interpreter (plugins/gateway-runs/src/flow/), through its own
 * API: compileFlow, step and the node-type registry, driven without HTTP or storage; effects are
 * answered by fakes. The run limits (RunLimits) are checked the way the runtime calls them.
 */
import { expect } from 'chai';
import { FlowCompileError, reachableNodes } from '../../plugins/gateway-runs/dist/flow/compile-flow.js';
import { effectNode, pureNode, UnsupportedNodeError } from '../../plugins/gateway-runs/dist/flow/node-types.js';
import { RunLimits, DEFAULT_RUN_LIMITS } from '../../plugins/gateway-runs/dist/runtime/run-limits.js';
import type { RunState } from '../../plugins/gateway-runs/dist/runtime/run-state.js';
import { edges, node } from './helpers/flow-builder.js';
import { compileFlow, nodeTypes, step, temp, walk, type RunVars, type VisualFlow } from './helpers/flow-driver.js';

/** A flow of `nodes` and `links` (`edges` syntax; a handle with a colon, `case:c1` or `then:0`, as `seq:then:0 -> a`). */
const flow = (nodes: ReturnType<typeof node>[], links: string[], extra: Partial<VisualFlow> = {}): VisualFlow => {
  const wired = links.map((link) => {
    const [from, to] = link.split('->').map((x) => x.trim()) as [string, string];
    const [source, ...handle] = from.split(':');
    return handle.length > 1 ? { id: link, source: source!, sourceHandle: handle.join(':'), target: to, targetHandle: 'exec-in' } : edges(link)[0]!;
  });
  return { id: 'f', nodes, edges: wired, ...extra } as VisualFlow;
};
const start = (outputs: string[] = [], data: Record<string, unknown> = {}) => node({ id: 'start', type: 'on_flow_start', outputs, data });
const end = (inputs: string[]) => node({ id: 'end', type: 'on_flow_end', inputs });
const getVar = (id: string, name: string) => node({ id, type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name } } });
const setVar = (id: string, name: string, value?: unknown) => node({ id, type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name, ...(value === undefined ? {} : { value }) } } });
const throwsFrom = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
};

describe('flow interpreter (unit): compiling a flow', () => {
  it('refuses a document without an id, nodes and edges', () => {
    expect(() => compileFlow({ id: 'x' } as VisualFlow)).to.throw(FlowCompileError, 'a flow needs an id, nodes and edges');
  });

  it('refuses two data edges into one input pin, naming the pin and the node', () => {
    const f = flow([start(['a', 'b']), end(['response'])], ['start -> end', 'start.a -> end.response', 'start.b -> end.response']);
    expect(() => compileFlow(f)).to.throw(FlowCompileError, "input pin 'response' of node 'end' has two data edges");
  });

  it('refuses several exec edges out of a plain handle, naming the node, and allows them out of branch handles', () => {
    const twice = flow([start(), setVar('a', 'x', 1), setVar('b', 'y', 2), end([])], ['start -> a', 'start -> b', 'a -> end']);
    expect(() => compileFlow(twice)).to.throw(FlowCompileError, "node 'start' has several exec edges out of 'exec-out'");
    // A branch handle may be wired again (the last edge wins), as documents from the editor do.
    const branch = node({ id: 'check', type: 'if', inputs: ['condition'] });
    expect(() => compileFlow(flow([start(), branch, end([])], ['start -> check', 'check:true -> end', 'check:true -> end']))).to.not.throw();
  });

  it('starts at entryNode when it is an exec node, else at the first exec node no exec edge leads to', () => {
    const nodes = [setVar('a', 'x', 1), start(), end([])];
    expect(compileFlow(flow(nodes, ['start -> a', 'a -> end'])).entry).to.equal('start');
    expect(compileFlow(flow(nodes, ['start -> a', 'a -> end'], { entryNode: 'a' })).entry).to.equal('a');
    expect(compileFlow(flow(nodes, ['start -> a', 'a -> end'], { entryNode: 'nowhere' })).entry).to.equal('start');
    expect(() => compileFlow(flow([getVar('g', 'x')], []))).to.throw(FlowCompileError, 'the flow has no execution node to start from');
  });

  it('counts as reachable the exec nodes from the entry and the pure nodes feeding them, not the rest', () => {
    const f = flow(
      [start(), getVar('read', 'x'), end(['response']), setVar('orphan', 'y', 1), getVar('unused', 'z')],
      ['start -> end', 'read.value -> end.response', 'unused.value -> orphan.value'],
    );
    expect(reachableNodes(compileFlow(f)).sort()).to.deep.equal(['end', 'read', 'start']);
  });
});

describe('flow interpreter (unit): node semantics', () => {
  it('on_flow_start outputs its declared pins from the run variables, filling defaults into the variables', () => {
    const f = flow([start(['prompt', 'mode'], { pinDefaults: { mode: 'short', prompt: 'unused default' } }), end(['prompt', 'mode'])], ['start -> end', 'start.prompt -> end.prompt', 'start.mode -> end.mode']);
    const run = walk(f, { vars: { prompt: 'hi' } });
    expect(run.output).to.deep.equal({ prompt: 'hi', mode: 'short', success: true });
    expect(run.vars).to.include({ prompt: 'hi', mode: 'short' });
  });

  it('on_flow_start without declared pins outputs every variable not starting with _', () => {
    const f = flow([start(), end(['a'])], ['start -> end']);
    const run = walk(f, { vars: { a: 1, _runtime: { stream: true } } });
    // The start's output is the ambient payload of the next exec node: end reads `a` from it.
    expect(run.output).to.deep.equal({ a: 1, success: true });
  });

  it('on_flow_end completes with its input pins (null when unset), success true unless an input says otherwise', () => {
    const ok = walk(flow([start(), end(['response', 'extra'])], ['start -> end']), { vars: { response: 'r' } });
    expect(ok.output).to.deep.equal({ response: 'r', extra: null, success: true });
    const failed = walk(flow([start(['success']), end(['success'])], ['start -> end', 'start.success -> end.success']), { vars: { success: false } });
    expect(failed.output).to.deep.equal({ success: false });
  });

  it('evaluates a pure node again on every read (it sees the variables as they are now)', () => {
    const f = flow(
      [start(), setVar('first', 'n', 'one'), node({ id: 'say1', type: 'concat', exec: false, inputs: ['a', 'b'], data: { pinDefaults: { a: 'n =' } } }), getVar('read', 'n'), setVar('copy', 'seen'), setVar('second', 'n', 'two'), end(['before', 'after'])],
      ['start -> first', 'first -> copy', 'copy -> second', 'second -> end', 'read.value -> say1.b', 'say1.result -> copy.value', 'say1.result -> end.after', 'read.value -> end.before'],
    );
    const run = walk(f);
    expect(run.vars.seen).to.equal('n = one');
    expect(run.output).to.include({ before: 'two', after: 'n = two' });
  });

  it('gives a literal node its authored value', () => {
    const f = flow([start(), node({ id: 'lit', type: 'literal_json', exec: false, outputs: ['value'], data: { literalValue: { k: [1, 2] } } }), end(['response'])], ['start -> end', 'lit.value -> end.response']);
    expect(walk(f).output.response).to.deep.equal({ k: [1, 2] });
  });

  it('set_var writes a dotted path, set_vars several names, set_var_property one key; none of them changes the ambient payload', () => {
    const f = flow(
      [
        start(['x']),
        setVar('deep', 'a.b[1]', 'v'),
        node({ id: 'many', type: 'set_vars', inputs: ['updates'], data: { pinDefaults: { updates: { m: 1, _hidden: 2 } } } }),
        node({ id: 'prop', type: 'set_var_property', inputs: ['name', 'key', 'value'], data: { pinDefaults: { name: 'obj', key: 'k', value: 3 } } }),
        end(['x']),
      ],
      ['start -> deep', 'deep -> many', 'many -> prop', 'prop -> end'],
    );
    const run = walk(f, { vars: { x: 'from start' } });
    expect(run.vars.a).to.deep.equal({ b: { 1: 'v' } });
    expect(run.vars).to.include({ m: 1 }).and.not.have.property('_hidden');
    expect(run.vars.obj).to.deep.equal({ k: 3 });
    // end reads `x` from the ambient payload, still the start's output after three set_* nodes.
    expect(run.output).to.deep.equal({ x: 'from start', success: true });
  });

  it('refuses a set_var of a reserved name (starting with _)', () => {
    const err = throwsFrom(() => walk(flow([start(), setVar('bad', '_runtime', 'x'), end([])], ['start -> bad', 'bad -> end'])));
    expect(err.message).to.equal("set_var cannot write '_runtime' (names starting with _ are reserved)");
  });

  it('add_message appends to context.messages and get_context reads them', () => {
    const f = flow(
      [start(), node({ id: 'add', type: 'add_message', inputs: ['role', 'content'], data: { pinDefaults: { role: 'assistant', content: 'hello' } } }), node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }), end(['messages'])],
      ['start -> add', 'add -> end', 'ctx.messages -> end.messages'],
    );
    const run = walk(f, { vars: { context: { messages: [{ role: 'user', content: 'hi' }] } } });
    expect(run.output.messages).to.deep.equal([{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }]);
  });
});

describe('flow interpreter (unit): edge routing and control flow', () => {
  const branchFlow = (type: 'if' | 'switch', data: Record<string, unknown> = {}) =>
    flow(
      [start(['v']), node({ id: 'check', type, inputs: [type === 'if' ? 'condition' : 'value'], data }), setVar('yes', 'took', 'a'), setVar('no', 'took', 'b'), end([])],
      ['start -> check', `start.v -> check.${type === 'if' ? 'condition' : 'value'}`, `check:${type === 'if' ? 'true' : 'case:c1'} -> yes`, `check:${type === 'if' ? 'false' : 'default'} -> no`, 'yes -> end', 'no -> end'],
    );

  it('if follows true for a truthy condition and false otherwise (an empty array is false)', () => {
    for (const [v, took] of [[1, 'a'], ['x', 'a'], [[0], 'a'], [0, 'b'], ['', 'b'], [[], 'b'], [null, 'b']] as const) {
      expect(walk(branchFlow('if'), { vars: { v } }).vars.took, JSON.stringify(v)).to.equal(took);
    }
  });

  it("switch follows the case whose value matches as a string, else default", () => {
    const f = branchFlow('switch', { switchConfig: { cases: [{ id: 'c1', value: 7 }] } });
    expect(walk(f, { vars: { v: '7' } }).vars.took).to.equal('a');
    expect(walk(f, { vars: { v: 8 } }).vars.took).to.equal('b');
  });

  it('completes with the last output when a branch has no next node and no loop to return to', () => {
    const f = flow([start(['v']), node({ id: 'shout', type: 'uppercase', inputs: ['text'] })], ['start -> shout', 'start.v -> shout.text']);
    expect(walk(f, { vars: { v: 'quiet' } }).output).to.deep.equal({ response: 'QUIET', success: true });
  });

  it('for counts from start to end by step (down too), then leaves by done', () => {
    const counting = (from: number, to: number, by: number) =>
      flow(
        [start(), node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: from, end: to, step: by } } }), node({ id: 'push', type: 'array_append', exec: false, inputs: ['array', 'item'] }), getVar('seen', 'seen'), node({ id: 'keep', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'seen' } } }), end(['seen'])],
        ['start -> loop', 'loop:loop -> keep', 'loop:done -> end', 'seen.value -> push.array', 'loop.i -> push.item', 'push.result -> keep.value', 'seen.value -> end.seen'],
      );
    expect(walk(counting(0, 3, 1)).output.seen).to.deep.equal([0, 1, 2]);
    expect(walk(counting(5, 0, -2)).output.seen).to.deep.equal([5, 3, 1]);
    expect(walk(counting(2, 2, 1)).output.seen).to.equal(null);
  });

  it('loop visits each item with index and total; a single value is one item and null none', () => {
    const f = flow(
      [start(['items']), node({ id: 'each', type: 'loop', inputs: ['items'], outputs: ['item', 'index', 'total'] }), node({ id: 'line', type: 'concat', exec: false, inputs: ['a', 'b', 'c'], data: { concatConfig: { separator: '/' } } }), getVar('log', 'log'), node({ id: 'add', type: 'array_append', exec: false, inputs: ['array', 'item'] }), node({ id: 'keep', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'log' } } }), end(['log'])],
      ['start -> each', 'start.items -> each.items', 'each:loop -> keep', 'each:done -> end', 'each.item -> line.a', 'each.index -> line.b', 'each.total -> line.c', 'log.value -> add.array', 'line.result -> add.item', 'add.result -> keep.value', 'log.value -> end.log'],
    );
    expect(walk(f, { vars: { items: ['x', 'y'] } }).output.log).to.deep.equal(['x/0/2', 'y/1/2']);
    expect(walk(f, { vars: { items: 'solo' } }).output.log).to.deep.equal(['solo/0/1']);
    expect(walk(f, { vars: { items: null } }).output.log).to.equal(null);
  });

  it('while repeats its body while the condition, read again each round, holds', () => {
    const f = flow(
      [start(), getVar('n', 'n'), node({ id: 'below', type: 'compare', exec: false, inputs: ['a', 'b', 'op'], data: { pinDefaults: { b: 3, op: '<' } } }), node({ id: 'spin', type: 'while', inputs: ['condition'], outputs: ['index'] }), node({ id: 'inc', type: 'add', exec: false, inputs: ['a', 'b'], data: { pinDefaults: { b: 1 } } }), node({ id: 'bump', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'n' } } }), end(['n'])],
      ['start -> spin', 'n.value -> below.a', 'below.result -> spin.condition', 'spin:loop -> bump', 'spin:done -> end', 'n.value -> inc.a', 'inc.result -> bump.value', 'n.value -> end.n'],
    );
    const run = walk(f, { vars: { n: 0 } });
    expect(run.output.n).to.equal(3);
    expect(run.visited.filter((id) => id === 'spin')).to.have.length(4);
  });

  it('sequence runs then:0, then:1, ... in order, each branch returning to it, then ends (it has no exec-out)', () => {
    const f = flow(
      [start(), node({ id: 'seq', type: 'sequence' }), setVar('one', 'a', 1), setVar('two', 'b', 2), setVar('after', 'c', 3)],
      ['start -> seq', 'seq:then:0 -> one', 'seq:then:1 -> two'],
    );
    const run = walk(f);
    expect(run.visited).to.deep.equal(['start', 'seq', 'one', 'seq', 'two', 'seq']);
    expect(run.vars).to.include({ a: 1, b: 2 }).and.not.have.property('c');
    expect(temp(run.vars).control).to.deep.equal([]);
  });

  it('parallel runs its then:N branches one after another, then leaves by completed', () => {
    const f = flow(
      [start(), node({ id: 'fan', type: 'parallel' }), setVar('one', 'a', 1), setVar('two', 'b', 2), setVar('after', 'c', 3), end([])],
      ['start -> fan', 'fan:then:0 -> one', 'fan:then:1 -> two', 'fan:completed -> after', 'after -> end'],
    );
    const run = walk(f);
    expect(run.visited).to.deep.equal(['start', 'fan', 'one', 'fan', 'two', 'fan', 'after', 'end']);
    expect(run.vars).to.include({ a: 1, b: 2, c: 3 });
  });

  it('an inner loop that ends returns to the outer loop', () => {
    const f = flow(
      [
        start(),
        node({ id: 'outer', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 2, step: 1 } } }),
        node({ id: 'inner', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, end: 3, step: 1 } } }),
        getVar('count', 'count'),
        node({ id: 'inc', type: 'add', exec: false, inputs: ['a', 'b'], data: { pinDefaults: { b: 1 } } }),
        node({ id: 'tick', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'count' } } }),
        end(['count']),
      ],
      ['start -> outer', 'outer:loop -> inner', 'outer:done -> end', 'inner:loop -> tick', 'count.value -> inc.a', 'inc.result -> tick.value', 'count.value -> end.count'],
    );
    expect(walk(f, { vars: { count: 0 } }).output.count).to.equal(6);
  });
});

describe('flow interpreter (unit): how a node sees data', () => {
  it("builds an exec node's inputs from the ambient payload, then data edges, then defaults of unconnected pins", () => {
    const f = flow(
      [start(['a', 'b']), node({ id: 'lit', type: 'literal_string', exec: false, outputs: ['value'], data: { literalValue: 'wired' } }), node({ id: 'mix', type: 'make_object', inputs: ['a', 'b', 'c'], data: { pinDefaults: { b: 'default b', c: 'default c' } } }), end(['result'])],
      ['start -> mix', 'mix -> end', 'lit.value -> mix.b', 'mix.result -> end.result'],
    );
    // a: from the start's output (ambient); b: the data edge beats the default; c: the default.
    expect(walk(f, { vars: { a: 'ambient a', b: 'ambient b' } }).output.result).to.deep.equal({ a: 'ambient a', b: 'wired', c: 'default c' });
  });

  it("reads an exec node's output pins after it ran: a key of an object, the whole of a scalar through result/output", () => {
    const f = flow(
      [start(['text']), node({ id: 'up', type: 'uppercase', inputs: ['text'], outputs: ['result'] }), node({ id: 'el', type: 'get_element', inputs: ['array', 'index'], outputs: ['result', 'found'], data: { pinDefaults: { array: ['p', 'q'], index: -1 } } }), end(['whole', 'output', 'found', 'missing'])],
      ['start -> up', 'up -> el', 'el -> end', 'start.text -> up.text', 'up.result -> end.whole', 'up.output -> end.output', 'el.found -> end.found', 'el.nothing -> end.missing'],
    );
    expect(walk(f, { vars: { text: 'abc' } }).output).to.include({ whole: 'ABC', output: 'ABC', found: true, missing: null });
  });

  it('reads a variable by a dotted and indexed path, null when it is absent', () => {
    const f = flow([start(), getVar('deep', 'a.list[1].name'), getVar('none', 'a.nothing.here'), end(['deep', 'none'])], ['start -> end', 'deep.value -> end.deep', 'none.value -> end.none']);
    expect(walk(f, { vars: { a: { list: [{ name: 'x' }, { name: 'y' }] } } }).output).to.include({ deep: 'y', none: null });
  });

  it('keeps each run\'s variables apart: one walk never sees another\'s', () => {
    const f = flow([start(), setVar('mark', 'mark', 'set'), getVar('read', 'mark'), end(['mark'])], ['start -> mark', 'mark -> end', 'read.value -> end.mark']);
    const compiled = compileFlow(f);
    const first = walk(compiled);
    const second = walk(compiled, { vars: { other: true } });
    expect(first.vars).to.not.have.property('other');
    expect(second.vars).to.include({ mark: 'set', other: true });
  });
});

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
    expect(run.effects[0]!.payload).to.deep.equal({ name: 'progress', scope: 'session', payload: { value: 42 } });
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
    expect(() => step(compiled, vars, 'parse', 'run-1', nodeTypes())).to.throw(SyntaxError);
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
