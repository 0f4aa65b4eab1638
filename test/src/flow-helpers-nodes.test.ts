/**
 * The origin's pure helper nodes (reference runtime-nodes §3, parity checklist §11), each in a flow
 * run through the HTTP API on the real boot path: outputs as the origin gives them, no ledger record
 * for a pure node, and a helper's error surfacing in the node that consumes it (the run completes
 * with `{success: false, error, node}`).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { node } from './helpers/flow-builder.js';
import { helperFlows, pure } from './helpers/helper-flows.js';

describe('helper nodes through the HTTP API (runtime-nodes §3)', function () {
  this.timeout(300_000);
  let k: TestKernel;
  const flows = helperFlows(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  /** The output of a run whose consumer `end` got a helper's error. */
  const consumerError = async (nodes: ReturnType<typeof node>[], links: string[], input: Record<string, unknown>) => {
    const { run } = await flows.run(nodes, links, ['result'], input);
    expect(run.status).to.equal('completed');
    return run.output!;
  };

  describe('set', () => {
    it('sets a dotted key on a copy of the object; the result pin is the whole object unless it has its own result key', async () => {
      const out = await flows.output(
        [pure('s', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: 'n.m' } }), pure('own', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: 'k' } }),
          pure('idx', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: 'a.0' } }), pure('fresh', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: 'only' } })],
        ['start.obj -> s.object', 'start.five -> s.value', 'start.withResult -> own.object', 'start.five -> own.value', 'start.list -> idx.object', 'start.five -> idx.value',
          's.result -> end.set', 'own.result -> end.own', 'idx.result -> end.idx', 'fresh.result -> end.fresh', 'start.obj -> end.original'],
        ['set', 'own', 'idx', 'fresh', 'original'],
        { obj: { a: 1 }, five: 5, withResult: { result: 'R', k: 1 }, list: { a: [1] } },
      );
      expect(out.set).to.deep.equal({ a: 1, n: { m: 5 } });
      expect(out.own).to.equal('R');
      // Numeric segments are plain keys; a missing object starts from {} and a missing value is null.
      expect(out.idx).to.deep.equal({ a: { 0: 5 } });
      expect(out.fresh).to.deep.equal({ only: null });
      // The input object itself is not changed.
      expect(out.original).to.deep.equal({ a: 1 });
    });

    it('object null: the consuming node fails, the run completes with success false naming it', async () => {
      const out = await consumerError([pure('s', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: 'k' } })], ['start.obj -> s.object', 's.result -> end.result'], { obj: null });
      expect(out).to.deep.equal({ success: false, error: "'NoneType' object is not iterable", node: 'end' });
    });
  });

  describe('string_template', () => {
    it('fills placeholders with paths and filters, rendering values as Python str() does', async () => {
      const template = "{{ user.name | upper }}|{{ items | join(' / ') }}|{{ obj | json }}|{{ missing }}|{{ missing | json }}|{{ f }}|{{ t }}|{{ o }}|{{ nums | join }}|{{ nums | join() }}|{{ n }}|{{ list.1.k }}|{{ e }}";
      const out = await flows.output(
        [pure('tpl', 'string_template', ['template', 'vars'], ['result'], { pinDefaults: { template } }), pure('bad', 'string_template', ['template', 'vars'], ['result'], { pinDefaults: { template: '[{{ x }}]' } })],
        ['start.vars -> tpl.vars', 'tpl.result -> end.text', 'start.notObject -> bad.vars', 'bad.result -> end.bad'],
        ['text', 'bad'],
        { vars: { user: { name: 'ada' }, items: ['a', null, 'c'], obj: { b: 1, a: 'é' }, f: 1.5, t: true, o: { k: [1, null] }, nums: [1, 2], n: 0, list: [{ k: 'x' }, { k: 'y' }], e: [] }, notObject: 'x' },
      );
      expect(out.text).to.equal(`ADA|a /  / c|{"a": "é", "b": 1}|||1.5|True|{'k': [1, None]}|1, 2|12|0|y|[]`);
      expect(out.bad).to.equal('[]');
    });
  });

  describe('format', () => {
    it('Python str.format: named fields, format specs, item access and literal braces; non-object values leave the template', async () => {
      const out = await flows.output(
        [pure('f', 'format', ['template', 'values'], ['result'], { pinDefaults: { template: 'Hello {name}, {n:.2f} {{lit}} {u[city]:>6}|{big:,}|{flag}' } }),
          pure('same', 'format', ['template', 'values'], ['result'], { pinDefaults: { template: 'Keep {this}' } })],
        ['start.values -> f.values', 'f.result -> end.text', 'start.list -> same.values', 'same.result -> end.same'],
        ['text', 'same'],
        { values: { name: 'A', n: 3.14159, u: { city: 'Oslo' }, big: 1234567, flag: true }, list: [1] },
      );
      expect(out.text).to.equal('Hello A, 3.14 {lit}   Oslo|1,234,567|True');
      expect(out.same).to.equal('Keep {this}');
    });

    it("a missing key fails the consuming node with Python's KeyError message", async () => {
      const out = await consumerError([pure('f', 'format', ['template', 'values'], ['result'], { pinDefaults: { template: 'Hi {name}' } })], ['start.values -> f.values', 'f.result -> end.result'], { values: {} });
      expect(out).to.deep.equal({ success: false, error: "'name'", node: 'end' });
    });
  });

  describe('make_meta', () => {
    it('defaults schema and version, turns a trace string into {trace_id}, and reserved keys beat extra', async () => {
      const meta = (id: string) => pure(id, 'make_meta', ['schema', 'version', 'provider', 'model', 'iterations', 'trace', 'warnings', 'extra'], ['meta']);
      const out = await flows.output(
        [meta('empty'), meta('traced'), meta('full')],
        ['empty.meta -> end.empty', 'start.t -> traced.trace', 'traced.meta -> end.traced', 'start.extra -> full.extra', 'start.provider -> full.provider', 'start.model -> full.model',
          'start.iterations -> full.iterations', 'start.warnings -> full.warnings', 'full.meta -> end.full'],
        ['empty', 'traced', 'full'],
        { t: 't', extra: { schema: 'mine', version: 7, provider: 'p0', keep: true }, provider: 'lmstudio', model: 42, iterations: '3.9', warnings: [' w1 ', '  ', 2] },
      );
      expect(out.empty).to.deep.equal({ schema: 'abstractcode.agent.v1.meta', version: 1 });
      expect(out.traced).to.deep.equal({ schema: 'abstractcode.agent.v1.meta', version: 1, trace: { trace_id: 't' } });
      expect(out.full).to.deep.equal({ schema: 'abstractcode.agent.v1.meta', version: 1, provider: 'lmstudio', model: '42', keep: true, iterations: 3, warnings: [' w1 ', '2'] });
    });
  });

  describe('bool_var and var_decl', () => {
    it('read the live run variables: a non-boolean var gives the default; a type mismatch the declared default, else the zero value', async () => {
      const decl = (id: string, literalValue: unknown) => pure(id, 'var_decl', [], ['name', 'value'], { literalValue });
      const out = await flows.output(
        [pure('flag', 'bool_var', [], ['name', 'value'], { literalValue: { name: 'flag', default: true } }), pure('nested', 'bool_var', [], ['name', 'value'], { literalValue: 'settings.enabled' }),
          pure('absent', 'bool_var', [], ['name', 'value'], { literalValue: 'nowhere' }),
          decl('count', { name: 'count', type: 'number', default: 5 }), decl('items', { name: 'items', type: 'array', default: 'oops' }), decl('good', { name: 'good', type: 'number', default: 1 }),
          decl('boolNumber', { name: 'b', type: 'number', default: 2 }), decl('anything', { name: 'x', type: 'weird' }),
          node({ id: 'keep', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'before' } } }), node({ id: 'flip', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'flag', value: false } } }),
          node({ id: 'readBefore', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'before' } } })],
        ['start -> keep', 'keep -> flip', 'flip -> end', 'flag.value -> keep.value', 'readBefore.value -> end.before', 'flag.value -> end.after', 'flag.name -> end.flagName', 'nested.value -> end.nested', 'absent.value -> end.absent',
          'count.value -> end.count', 'items.value -> end.items', 'good.value -> end.good', 'boolNumber.value -> end.boolNumber', 'anything.value -> end.anything', 'count.name -> end.countName'],
        ['before', 'after', 'flagName', 'nested', 'absent', 'count', 'items', 'good', 'boolNumber', 'anything', 'countName'],
        { flag: 'yes', settings: { enabled: true }, count: '7', good: 3, b: true, x: { k: 1 } },
      );
      // `flag` was the text 'yes' (default true), then set_var made it false: the node re-reads the variable.
      expect(out).to.deep.include({ before: true, after: false, flagName: 'flag', nested: true, absent: false, count: 5, items: [], good: 3, boolNumber: 2, anything: { k: 1 }, countName: 'count' });
    });
  });

  describe('get_random_element, array_map, has_tools', () => {
    it('give the origin results for empty lists, strings and mixed items', async () => {
      const out = await flows.output(
        [pure('none', 'get_random_element', ['array', 'default'], ['result', 'found'], { pinDefaults: { default: 'none' } }), pure('word', 'get_random_element', ['array', 'default'], ['result', 'found']),
          pure('pick', 'get_random_element', ['array', 'default'], ['result', 'found']), pure('map', 'array_map', ['items', 'key'], ['result'], { pinDefaults: { key: 'a' } }),
          pure('chars', 'array_map', ['items', 'key'], ['result'], { pinDefaults: { key: 'a' } }),
          pure('h1', 'has_tools', ['array'], ['result']), pure('h2', 'has_tools', ['array'], ['result']), pure('h3', 'has_tools', ['array'], ['result']), pure('h4', 'has_tools', ['array'], ['result'])],
        ['start.empty -> none.array', 'none.result -> end.noneResult', 'none.found -> end.noneFound', 'start.word -> word.array', 'word.found -> end.wordFound', 'word.result -> end.wordResult',
          'start.list -> pick.array', 'pick.result -> end.picked', 'pick.found -> end.pickFound', 'start.mixed -> map.items', 'map.result -> end.mapped', 'start.word -> chars.items', 'chars.result -> end.chars',
          'start.oneObject -> h1.array', 'start.empty -> h2.array', 'start.nothing -> h3.array', 'start.word -> h4.array', 'h1.result -> end.h1', 'h2.result -> end.h2', 'h3.result -> end.h3', 'h4.result -> end.h4'],
        ['noneResult', 'noneFound', 'wordFound', 'wordResult', 'picked', 'pickFound', 'mapped', 'chars', 'h1', 'h2', 'h3', 'h4'],
        { empty: [], word: 'abc', list: [7, 8, 9], mixed: [{ a: 1 }, { b: 2 }, 3], oneObject: [{}], nothing: null },
      );
      expect(out).to.deep.include({ noneResult: 'none', noneFound: false, wordFound: false, wordResult: null, pickFound: true, mapped: [1, null, 3], chars: ['a', 'b', 'c'], h1: true, h2: false, h3: false, h4: false });
      expect([7, 8, 9]).to.include(out.picked);
    });

    it('array_map of null items fails the consuming node', async () => {
      const out = await consumerError([pure('map', 'array_map', ['items', 'key'], ['result'])], ['start.items -> map.items', 'map.result -> end.result'], { items: null });
      expect(out).to.deep.equal({ success: false, error: "'NoneType' object is not iterable", node: 'end' });
    });
  });

  describe('make_context', () => {
    it('builds {...context_extra, task, messages} with task as text and a scalar message as a list', async () => {
      const out = await flows.output(
        [pure('ctx', 'make_context', ['task', 'messages', 'context_extra'], ['context']), pure('empty', 'make_context', ['task', 'messages', 'context_extra'], ['context'])],
        ['start.task -> ctx.task', 'start.message -> ctx.messages', 'start.extra -> ctx.context_extra', 'ctx.context -> end.context', 'empty.context -> end.empty'],
        ['context', 'empty'],
        { task: 42, message: 'hi', extra: { lang: 'en', task: 'overridden' } },
      );
      expect(out.context).to.deep.equal({ lang: 'en', task: '42', messages: ['hi'] });
      expect(out.empty).to.deep.equal({ task: '', messages: [] });
    });
  });

  describe('older helpers brought to the origin', () => {
    it('concat writes values as Python str() and leaves out pins with no value; array_concat appends scalars', async () => {
      const out = await flows.output(
        [pure('line', 'concat', ['a', 'b', 'c', 'd', 'e'], ['result'], { concatConfig: { separator: ' | ' } }), pure('arr', 'array_concat', ['a', 'b', 'c', 'd'], ['result'])],
        ['start.obj -> line.a', 'start.flag -> line.b', 'start.nothing -> line.c', 'start.num -> line.e', 'line.result -> end.line',
          'start.list -> arr.a', 'start.num -> arr.b', 'start.nothing -> arr.c', 'arr.result -> end.arr'],
        ['line', 'arr'],
        { obj: { k: [1, null] }, flag: true, nothing: null, num: 2.5, list: [1, 2] },
      );
      // d is not wired (left out); c is null (an empty part).
      expect(out.line).to.equal("{'k': [1, None]} | True |  | 2.5");
      expect(out.arr).to.deep.equal([1, 2, 2.5]);
    });

    it("var_decl of type any reads a missing variable as null; a type the origin does not know (Boolean) reads as any", async () => {
      const decl = (id: string, literalValue: unknown) => pure(id, 'var_decl', [], ['name', 'value'], { literalValue });
      const out = await flows.output(
        [decl('missing', { name: 'nowhere', type: 'any', default: 'unused' }), decl('capital', { name: 'text', type: 'Boolean', default: false }), decl('unnamed', { type: 'number', default: 4 })],
        ['missing.value -> end.missing', 'capital.value -> end.capital', 'unnamed.value -> end.unnamed'],
        ['missing', 'capital', 'unnamed'],
        { text: 'hello' },
      );
      expect(out).to.deep.include({ missing: null, capital: 'hello', unnamed: 4 });
    });

    it('text, logic, math and array helpers compute as the origin builtins (Python str, ==, float, %, round)', async () => {
      const n = (id: string, type: string, inputs: string[], pinDefaults: Record<string, unknown>, outputs = ['result']) => pure(id, type, inputs, outputs, { pinDefaults });
      const out = await flows.output(
        [n('sp', 'split', ['text'], { text: 'a, b,,c,' }), n('sp1', 'split', ['text', 'maxsplit', 'trim', 'drop_empty'], { text: 'a, b,c', maxsplit: 1, trim: false, drop_empty: false }),
          n('jn', 'join', ['items'], { items: [1, null, true] }), n('rp1', 'replace', ['text', 'pattern', 'replacement', 'mode'], { text: 'a-a-a', pattern: '-', replacement: '+', mode: 'first' }),
          n('rp2', 'replace', ['text', 'pattern', 'replacement', 'mode'], { text: 'a-a-a', pattern: '-', replacement: '+', mode: '2' }), n('rp3', 'replace', ['text', 'pattern'], { text: 'a-a', pattern: '' }),
          n('ct1', 'contains', ['text', 'pattern'], { text: 'abc', pattern: '' }), n('ct2', 'contains', ['text', 'pattern'], { text: 'abc', pattern: 'b' }),
          n('sub', 'substring', ['text', 'start', 'end'], { text: 'héllo', start: 1, end: -1 }), n('len1', 'length', ['text'], { text: [1, 2] }), n('len2', 'length', ['text'], { text: 'héllo' }),
          n('up', 'uppercase', ['text'], { text: null }),
          n('eq1', 'compare', ['a', 'b', 'op'], { a: true, b: 1, op: '==' }), n('eq2', 'compare', ['a', 'b', 'op'], { a: '1', b: 1, op: '==' }), n('lt1', 'compare', ['a', 'b', 'op'], { a: 1, b: 'a', op: '<' }),
          n('lt2', 'compare', ['a', 'b', 'op'], { a: [1, 2], b: [1, 3], op: '<' }), n('nt', 'not', ['value'], { value: {} }), n('nd', 'and', ['a', 'b'], { a: 1, b: [] }),
          n('ad', 'add', ['a', 'b'], { a: '2', b: 3 }), n('dv', 'divide', ['a', 'b'], { a: 7, b: 2 }), n('md', 'modulo', ['a', 'b'], { a: -7, b: 3 }),
          n('rd1', 'round', ['value', 'decimals'], { value: 2.675, decimals: 2 }), n('rd2', 'round', ['value'], { value: 2.5 }), n('pw', 'power', ['base', 'exp'], { base: 2, exp: 10 }),
          n('gt', 'get', ['object', 'key', 'default'], { object: { a: { b: null } }, key: 'a.b', default: 'd' }, ['value']),
          n('ge1', 'get_element', ['array', 'index'], { array: ['p', 'q'], index: '-1' }, ['result', 'found']), n('ge2', 'get_element', ['array', 'index'], { array: ['p', 'q'], index: 'x' }, ['result', 'found']),
          n('ge3', 'get_element', ['array', 'index', 'default'], { array: ['p', 'q'], index: 5, default: 'none' }, ['result', 'found']), n('ap', 'array_append', ['array', 'item'], { array: 'x', item: 'y' })],
        ['sp.result -> end.sp', 'sp1.result -> end.sp1', 'jn.result -> end.jn', 'rp1.result -> end.rp1', 'rp2.result -> end.rp2', 'rp3.result -> end.rp3', 'ct1.result -> end.ct1', 'ct2.result -> end.ct2',
          'sub.result -> end.sub', 'len1.result -> end.len1', 'len2.result -> end.len2', 'up.result -> end.up', 'eq1.result -> end.eq1', 'eq2.result -> end.eq2', 'lt1.result -> end.lt1', 'lt2.result -> end.lt2',
          'nt.result -> end.nt', 'nd.result -> end.nd', 'ad.result -> end.ad', 'dv.result -> end.dv', 'md.result -> end.md', 'rd1.result -> end.rd1', 'rd2.result -> end.rd2', 'pw.result -> end.pw',
          'gt.value -> end.gt', 'ge1.result -> end.ge1', 'ge2.result -> end.ge2', 'ge3.result -> end.ge3', 'ge3.found -> end.ge3found', 'ap.result -> end.ap'],
        ['sp', 'sp1', 'jn', 'rp1', 'rp2', 'rp3', 'ct1', 'ct2', 'sub', 'len1', 'len2', 'up', 'eq1', 'eq2', 'lt1', 'lt2', 'nt', 'nd', 'ad', 'dv', 'md', 'rd1', 'rd2', 'pw', 'gt', 'ge1', 'ge2', 'ge3', 'ge3found', 'ap'],
      );
      expect(out).to.deep.equal({
        sp: ['a', 'b', 'c'], sp1: ['a', ' b,c'], jn: '1,,True', rp1: 'a+a-a', rp2: 'a+a+a', rp3: 'a-a', ct1: false, ct2: true, sub: 'éll', len1: 6, len2: 5, up: 'NONE',
        eq1: true, eq2: false, lt1: false, lt2: true, nt: true, nd: false, ad: 5, dv: 3.5, md: 2, rd1: 2.67, rd2: 2, pw: 1024,
        gt: 'd', ge1: 'q', ge2: 'p', ge3: 'none', ge3found: false, ap: ['x', 'y'], success: true,
      });
    });

    for (const [what, type, pins, error] of [
      ['divide by zero', 'divide', { a: 1, b: 0 }, 'Division by zero'],
      ['a text that is no number', 'add', { a: 'abc', b: 1 }, "could not convert string to float: 'abc'"],
      ['an unknown comparison', 'compare', { a: 1, b: 2, op: '~' }, 'Unknown comparison operator: ~'],
    ] as const) {
      it(`${what}: the origin's error in the consuming node`, async () => {
        const { run } = await flows.run([pure('x', type, Object.keys(pins), ['result'], { pinDefaults: pins })], ['x.result -> end.result'], ['result']);
        expect(run.output).to.deep.equal({ success: false, error, node: 'end' });
      });
    }
  });
});

