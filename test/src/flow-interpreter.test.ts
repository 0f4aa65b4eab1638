/**
 * Unit tests of gateway-runs' flow interpreter (plugins/gateway-runs/src/flow/), through its own
 * API without HTTP or storage: compiling a flow, node semantics, edge routing and control flow, and
 * how a node sees data. Effects, errors, the registry and run limits: flow-interpreter-effects.test.ts.
 */
import { expect } from 'chai';
import { FlowCompileError, reachableNodes } from '../../plugins/gateway-runs/dist/flow/compile-flow.js';
import { node } from './helpers/flow-builder.js';
import { compileFlow, temp, walk, type VisualFlow } from './helpers/flow-driver.js';
import { end, flow, getVar, setVar, start, throwsFrom } from './helpers/flow-shorthands.js';

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
