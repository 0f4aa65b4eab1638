/**
 * The origin's text-producing and parsing helpers through the HTTP API (reference runtime-nodes §3.8
 * `parse_json` — gap S6 —, §3.9 `agent_trace_report`, §3.10 `format_tool_results`): every case of
 * §3.8, the exact Markdown of §3.9 and the digest lines of §3.10, byte for byte.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { parseJsonText } from '../../plugins/gateway-runs/dist/flow/helpers/parse-json.js';
import { node } from './helpers/flow-builder.js';
import { helperFlows, pure } from './helpers/helper-flows.js';

describe('text and parsing helper nodes through the HTTP API (runtime-nodes §3.8–3.10)', function () {
  this.timeout(300_000);
  let k: TestKernel;
  const flows = helperFlows(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
  });
  after(() => k?.stop());

  describe('parse_json (S6)', () => {
    const parsed: Array<[string, unknown, unknown]> = [
      ['strict JSON', '{"a": 1}', { a: 1 }],
      ['a code fence (first line dropped, cut at the last fence)', '```json\n{"a": [1, 2]}\n```', { a: [1, 2] }],
      ['JSON inside prose, trailing prose ignored', 'Sure! Here it is: {"x": {"y": 1}} hope it helps', { x: { y: 1 } }],
      ['the first position that decodes wins', '[1,2] then {"k": 1}', [1, 2]],
      ['an unclosed outer object: the inner one', 'Result: {"a": {"b": 1}', { b: 1 }],
      ['a Python dict (single quotes, True/None, tuples as lists)', "{'a': 1, 'b': True, 'c': None, 'd': (1, 2)}", { a: 1, b: true, c: null, d: [1, 2] }],
      ['a number, wrapped', 5, { value: 5 }],
      ['a boolean, str()-ed then parsed', true, { value: true }],
      ['the text None', 'None', { value: null }],
      ['a JSON string scalar', '"hi"', { value: 'hi' }],
      ['an object as it is', { already: ['there'] }, { already: ['there'] }],
    ];

    it('parses every accepted form of §3.8 to the origin value', async () => {
      const nodes = parsed.map((_, i) => pure(`p${i}`, 'parse_json', ['text'], ['result']));
      const links = parsed.flatMap((_, i) => [`start.t${i} -> p${i}.text`, `p${i}.result -> end.r${i}`]);
      const out = await flows.output(nodes, links, parsed.map((_, i) => `r${i}`), Object.fromEntries(parsed.map(([, text], i) => [`t${i}`, text])));
      parsed.forEach(([what, , expected], i) => expect(out[`r${i}`], what).to.deep.equal(expected));
    });

    it('wrap_scalar false gives the bare scalar; an object with its own result key gives that key on the result pin', async () => {
      const out = await flows.output(
        [pure('bare', 'parse_json', ['text', 'wrap_scalar'], ['result'], { pinDefaults: { wrap_scalar: false } }), pure('own', 'parse_json', ['text'], ['result', 'x'])],
        ['start.scalar -> bare.text', 'bare.result -> end.bare', 'start.withResult -> own.text', 'own.result -> end.own', 'own.x -> end.x'],
        ['bare', 'own', 'x'],
        { scalar: '"hi"', withResult: '{"result": 5, "x": 1}' },
      );
      expect(out).to.deep.include({ bare: 'hi', own: 5, x: 1 });
    });

    for (const [what, text, error] of [
      ['null input', null, "parse_json requires a non-empty 'text' input."],
      ['blank text', '   ', "parse_json requires a non-empty 'text' input."],
      ['an empty code fence', '```\n\n```', "parse_json requires a non-empty 'text' input."],
    ] as const) {
      it(`${what}: the consuming plain node fails with the origin's sentence and the run completes`, async () => {
        const { run } = await flows.run([pure('p', 'parse_json', ['text'], ['result'])], ['start.text -> p.text', 'p.result -> end.result'], ['result'], { text });
        expect(run.status).to.equal('completed');
        expect(run.output).to.deep.equal({ success: false, error, node: 'end' });
      });
    }

    for (const [what, text] of [['text that is no JSON nor Python literal', 'not json'], ['the JSON text null (parses to nothing)', 'null']] as const) {
      it(`${what}: Invalid JSON in the consuming node`, async () => {
        const { run } = await flows.run([pure('p', 'parse_json', ['text'], ['result'])], ['start.text -> p.text', 'p.result -> end.result'], ['result'], { text });
        expect(run.status).to.equal('completed');
        expect(run.output).to.include({ success: false, node: 'end' });
        expect(String(run.output!.error)).to.match(/^Invalid JSON: /);
      });
    }

    it('a failing parse_json read by an effect node fails the run as a tick exception with the Python type (S6)', async () => {
      const { run, ledger } = await flows.run(
        [pure('p', 'parse_json', ['text'], ['result']), node({ id: 'say', type: 'answer_user', inputs: ['message'], outputs: ['message'] })],
        ['start -> say', 'say -> end', 'start.text -> p.text', 'p.result -> say.message'],
        [],
        { text: null },
      );
      expect(run.status).to.equal('failed');
      expect(run.error).to.equal("ValueError: parse_json requires a non-empty 'text' input.");
      const failed = ledger.filter((r) => r.status === 'failed');
      expect(failed).to.have.length(1);
      expect(failed[0]).to.deep.include({ node_id: 'say', error: run.error, idempotency_key: `system:tick_exception:${run.run_id}` });
      expect(ledger.some((r) => r.effect?.type === 'answer_user')).to.equal(false);
    });

    it('break_object reads a Python-style dict string through parse_json, and keeps a string it cannot parse', async () => {
      const out = await flows.output(
        [pure('b', 'break_object', ['object'], ['a', 'c'], { breakConfig: { selectedPaths: ['a', 'c'] } }), pure('raw', 'break_object', ['object'], ['a'], { breakConfig: { selectedPaths: ['a'] } })],
        ['start.text -> b.object', 'b.a -> end.a', 'b.c -> end.c', 'start.junk -> raw.object', 'raw.a -> end.junk'],
        ['a', 'c', 'junk'],
        // A Python literal is read only when it is the whole text (inside prose only JSON is found).
        { text: "{'a': {'b': 2}, 'c': [True]}", junk: "Here: {'a': 1}" },
      );
      expect(out).to.deep.include({ a: { b: 2 }, c: [true], junk: null });
    });
  });

  describe('agent_trace_report', () => {
    const scratchpad = {
      sub_run_id: 'sub-1',
      workflow_id: 'bundle:agent',
      node_traces: {
        reason: {
          node_id: 'reason',
          steps: [
            { ts: '2026-01-01T00:00:01Z', node_id: 'reason', status: 'completed', effect: { type: 'llm_call', payload: {} }, duration_ms: 12.5, result: { content: 'Let me look.', model: 'm1', finish_reason: 'tool_calls', tool_calls: [{ name: 'read_file', call_id: 'c1', arguments: { path: 'a.txt' } }] } },
            { ts: '2026-01-01T00:00:03Z', node_id: 'reason', status: 'failed', effect: { type: 'llm_call', payload: {} }, error: 'timeout' },
          ],
        },
        act: {
          node_id: 'act',
          steps: [
            { ts: '2026-01-01T00:00:02Z', node_id: 'act', status: 'completed', effect: { type: 'tool_calls', payload: { tool_calls: [{ name: 'read_file', call_id: 'c1', arguments: { path: 'a.txt', note: 'é' } }, { name: 'list_files', call_id: 'c2', arguments: {} }] } }, result: { results: [{ call_id: 'c1', success: true, output: 'hello', error: null }] } },
            { ts: '2026-01-01T00:00:04Z', node_id: 'act', status: 'completed', effect: { type: 'wait_until', payload: {} }, result: { until: 'x', ready: true } },
          ],
        },
      },
    };
    const expected = [
      '# Agent Trace Report',
      '- **sub_run_id**: `sub-1`',
      '- **workflow_id**: `bundle:agent`',
      '',
      '## Timeline',
      '',
      '### 1. `reason` — `llm_call` (completed)',
      '- **duration_ms**: 12.500',
      '- **model**: `m1`',
      '- **finish_reason**: `tool_calls`',
      '- **tool_calls_requested**:',
      '  - `read_file` (call_id=c1)',
      '',
      '**Assistant content**',
      '```markdown',
      'Let me look.',
      '```',
      '',
      '### 2. `act` — `tool_calls` (completed)',
      '',
      '#### Tool: `read_file` (call_id=c1)',
      '',
      '**Arguments**',
      '```json',
      '{',
      '  "path": "a.txt",',
      '  "note": "é"',
      '}',
      '```',
      '',
      '**Result**',
      '- **success**: true',
      '```text',
      'hello',
      '```',
      '',
      '#### Tool: `list_files` (call_id=c2)',
      '',
      '**Arguments**',
      '```json',
      '{}',
      '```',
      '',
      '**Result**',
      '_missing tool result in trace entry_',
      '',
      '### 3. `reason` — `llm_call` (failed)',
      '',
      '**Error**',
      '```text',
      'timeout',
      '```',
      '',
      '### 4. `act` — `wait_until` (completed)',
      '',
      '**Result (raw)**',
      '```json',
      '{',
      '  "until": "x",',
      '  "ready": true',
      '}',
      '```',
      '',
    ].join('\n');

    it('renders an llm_call + tool_calls trace as the origin Markdown byte for byte, and a non-object as the fixed text', async () => {
      const report = (id: string) => pure(id, 'agent_trace_report', ['scratchpad'], ['result']);
      const out = await flows.output(
        [report('full'), report('none'), report('noTraces'), report('noSteps')],
        ['start.sp -> full.scratchpad', 'full.result -> end.full', 'start.text -> none.scratchpad', 'none.result -> end.none', 'start.empty -> noTraces.scratchpad', 'noTraces.result -> end.noTraces',
          'start.stepless -> noSteps.scratchpad', 'noSteps.result -> end.noSteps'],
        ['full', 'none', 'noTraces', 'noSteps'],
        { sp: scratchpad, text: 'not an object', empty: {}, stepless: { sub_run_id: 's', node_traces: {} } },
      );
      expect(out.full).to.equal(expected);
      expect(out.none).to.equal('# Agent Trace Report\n\n_No scratchpad provided._\n');
      expect(out.noTraces).to.equal('# Agent Trace Report\n\n_No node_traces found in scratchpad._\n');
      expect(out.noSteps).to.equal('# Agent Trace Report\n- **sub_run_id**: `s`\n\n_No trace steps found._\n');
    });
  });

  describe('format_tool_results', () => {
    it('one digest line per result: signature, status, observation; rendered preferred; 160/420 clamps with …', async () => {
      const results = [
        { name: 'web_search', success: false, error: 'boom', arguments: { query: 'cats' } },
        { name: 'search', success: true, output: { rendered: '  Found 2 results\nfirst, second  ', hits: 2 } },
        { tool: 'echo', output: 'x'.repeat(500), arguments: { text: 'y'.repeat(200) } },
        { name: 'read_file', success: true, arguments: { start_line: 1, path: 'a.txt' }, output: { content: 'hi', lines: 1 } },
        'not an object',
        { name: 'noop', success: true, output: null },
        { success: true, output: 'multi\r\n\r\nline\rtext' },
      ];
      const out = await flows.output(
        [pure('digest', 'format_tool_results', ['tool_results'], ['result']), pure('one', 'format_tool_results', ['results'], ['result']), pure('empty', 'format_tool_results', ['tool_results'], ['result'])],
        ['start.results -> digest.tool_results', 'digest.result -> end.digest', 'start.single -> one.results', 'one.result -> end.one', 'start.none -> empty.tool_results', 'empty.result -> end.empty'],
        ['digest', 'one', 'empty'],
        { results, single: { name: 'web_search', success: false, error: 'boom', arguments: { query: 'cats' } }, none: [] },
      );
      expect(out.digest).to.equal([
        '- web_search(cats) [FAILURE] : boom',
        '- search(Found 2 results first, second) [SUCCESS] : Found 2 results\nfirst, second',
        `- echo(${'y'.repeat(159)}…) [DONE] : ${'x'.repeat(419)}…`,
        // read_file's spec requires `path`: it is the primary argument whatever the order given.
        '- read_file(a.txt) [SUCCESS] : {"content":"hi","lines":1}',
        '- noop() [SUCCESS] : (no output)',
        '- tool() [SUCCESS] : multi line text',
      ].join('\n'));
      expect(out.one).to.equal('- web_search(cats) [FAILURE] : boom');
      expect(out.empty).to.equal('');
    });
  });

  describe('stringify_json', () => {
    it("writes JSON as the origin does: beautified with 2 spaces by default, JSON-ish text parsed first, minified or sorted on request", async () => {
      const node = (id: string, data: Record<string, unknown> = {}) => pure(id, 'stringify_json', ['value', 'mode', 'indent', 'sort_keys'], ['result'], data);
      const out = await flows.output(
        [node('plain'), node('fromText'), node('mini', { pinDefaults: { mode: 'minified', sort_keys: true } }), node('wide', { pinDefaults: { indent: 4 } }), node('word'), node('legacyMini', { pinDefaults: { indent: 0 } })],
        ['start.obj -> plain.value', 'plain.result -> end.plain', 'start.text -> fromText.value', 'fromText.result -> end.fromText', 'start.obj -> mini.value', 'mini.result -> end.mini',
          'start.flag -> wide.value', 'wide.result -> end.wide', 'start.word -> word.value', 'word.result -> end.word', 'start.obj -> legacyMini.value', 'legacyMini.result -> end.legacyMini'],
        ['plain', 'fromText', 'mini', 'wide', 'word', 'legacyMini'],
        { obj: { b: [1, 2], a: 'é' }, text: "Here: {'k': True}", flag: { k: true }, word: 'hello' },
      );
      expect(out).to.deep.equal({
        plain: '{\n  "b": [\n    1,\n    2\n  ],\n  "a": "é"\n}',
        // Inside prose only JSON is found; a Python literal must be the whole text, so the text stays a string.
        fromText: '"Here: {\'k\': True}"',
        mini: '{"a":"é","b":[1,2]}',
        wide: '{\n    "k": true\n}',
        word: '"hello"',
        legacyMini: '{"b":[1,2],"a":"é"}',
        success: true,
      });
    });
  });

  describe('attacks on the helpers', () => {
    it('a __proto__ key from parse_json or set stays an own key: no prototype is changed, in the run or in the process', async () => {
      const out = await flows.output(
        [pure('p', 'parse_json', ['text'], ['result']), pure('s', 'set', ['object', 'key', 'value'], ['result'], { pinDefaults: { key: '__proto__.polluted', value: 'yes' } }),
          pure('lit', 'parse_json', ['text'], ['result']), pure('m', 'merge', ['a', 'b'], ['result'])],
        ['start.json -> p.text', 'p.result -> end.parsed', 's.result -> end.set', 'start.python -> lit.text', 'lit.result -> end.literal', 'p.result -> m.a', 'lit.result -> m.b', 'm.result -> end.merged'],
        ['parsed', 'set', 'literal', 'merged'],
        { json: '{"__proto__": {"polluted": "yes"}, "a": 1}', python: "{'__proto__': {'polluted': 'yes'}}" },
      );
      // The key stays data (the run store's msgpack reads an own `__proto__` key back as `__proto_`).
      for (const value of [out.parsed, out.set, out.literal, out.merged]) expect(Object.values(value as object)).to.deep.include({ polluted: 'yes' });
      expect(out.parsed).to.deep.include({ a: 1 });
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      // In the helpers themselves it is an own key, not the object's prototype.
      const parsed = parseJsonText('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
      expect(Object.hasOwn(parsed, '__proto__')).to.equal(true);
      expect(Object.getPrototypeOf(parsed)).to.equal(Object.prototype);
    });

    it('set_var and set_var_property through __proto__ write run data, not Object.prototype; get_var, var_decl and format read own keys only', async () => {
      const proto = Object.prototype as Record<string, unknown>;
      try {
        const out = await flows.output(
          [node({ id: 'poison', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'box.__proto__.keelPolluted13', value: 'yes' } } }),
            node({ id: 'poisonProperty', type: 'set_var_property', inputs: ['name', 'key', 'value'], data: { pinDefaults: { name: 'box2', key: '__proto__.keelPolluted13b', value: 'yes' } } }),
            node({ id: 'readBack', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'box.__proto__.keelPolluted13' } } }),
            node({ id: 'ctor', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'constructor' } } }),
            pure('decl', 'var_decl', [], ['name', 'value'], { literalValue: { name: 'constructor', type: 'string', default: 'declared' } })],
          ['start -> poison', 'poison -> poisonProperty', 'poisonProperty -> end', 'readBack.value -> end.readBack', 'ctor.value -> end.ctor', 'decl.value -> end.decl'],
          ['readBack', 'ctor', 'decl'],
        );
        expect([proto.keelPolluted13, proto.keelPolluted13b], 'Object.prototype untouched').to.deep.equal([undefined, undefined]);
        expect(out).to.deep.include({ readBack: 'yes', ctor: null, decl: 'declared' });
        const { run } = await flows.run([pure('f', 'format', ['template', 'values'], ['result'], { pinDefaults: { template: '{constructor}', values: {} } })], ['f.result -> end.result'], ['result']);
        expect(run.output).to.deep.equal({ success: false, error: "'constructor'", node: 'end' });
      } finally {
        delete proto.keelPolluted13;
        delete proto.keelPolluted13b;
      }
    });

    it("an output pin named __proto__ reads nothing, so Object.prototype cannot be reached as a value and then written through", async () => {
      const proto = Object.prototype as Record<string, unknown>;
      try {
        const out = await flows.output(
          [pure('obj', 'make_context', ['task'], ['context']),
            node({ id: 'grab', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'box' } } }),
            node({ id: 'write', type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name: 'box.keelPolluted13c', value: 'yes' } } }),
            node({ id: 'ctorPin', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: 'box' } } })],
          ['start -> grab', 'grab -> write', 'write -> end', 'obj.__proto__ -> grab.value', 'ctorPin.value -> end.box'],
          ['box'],
        );
        expect(proto.keelPolluted13c, 'Object.prototype untouched').to.equal(undefined);
        expect(out.box).to.deep.equal({ keelPolluted13c: 'yes' });
      } finally {
        delete proto.keelPolluted13c;
      }
    });

    it('a format field width larger than a run may hold is refused before the text is built (limits.maxVarsBytes)', async () => {
      const { run } = await flows.run([pure('f', 'format', ['template', 'values'], ['result'], { pinDefaults: { template: '{x:>200000000}' } })], ['start.values -> f.values', 'f.result -> end.result'], ['result'], { values: { x: 1 } });
      expect(run.status).to.equal('completed');
      expect(run.output).to.deep.equal({
        success: false,
        error: "The format field width 200000000 is more than a run's variables may hold (16777216 bytes, setting `limits.maxVarsBytes` of the gateway-runs plugin).",
        node: 'end',
      });
    });

    it('deeply nested text to parse_json fails the node with Invalid JSON instead of overflowing the stack', async () => {
      const { run } = await flows.run([pure('p', 'parse_json', ['text'], ['result'])], ['start.text -> p.text', 'p.result -> end.result'], ['result'], { text: `${'['.repeat(100_000)}${']'.repeat(99_999)}` });
      expect(run.status).to.equal('completed');
      expect(run.output).to.include({ success: false, node: 'end' });
      expect(String(run.output!.error)).to.match(/^Invalid JSON: /);
    });
  });

  describe('helpers stay linear on hostile text (a small CPU budget per run)', () => {
    let small: TestKernel;
    const budgeted = helperFlows(() => small);
    before(async () => {
      // 3 s of stepping per run: the old regex scans took tens of seconds on these texts and ended their runs on the budget.
      small = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxRunCpuMs: 3000 } } }] });
    });
    after(() => small?.stop());

    it('string_template with 30,000 `{{` and no `}}` on the line fills a later line and completes', async () => {
      const template = `${'{{'.repeat(30_000)}\nx\n{{ a }}`;
      const out = await budgeted.output([pure('t', 'string_template', ['template', 'vars'], ['result'])], ['start.template -> t.template', 'start.vars -> t.vars', 't.result -> end.text'], ['text'], { template, vars: { a: 'A' } });
      expect(out.text).to.equal(`${'{{'.repeat(30_000)}\nx\nA`);
    });

    it('break_object of 50,000 digits and a letter (no JSON, no Python literal) keeps the string and completes', async () => {
      const out = await budgeted.output([pure('b', 'break_object', ['object'], ['a'], { breakConfig: { selectedPaths: ['a'] } })], ['start.text -> b.object', 'b.a -> end.a'], ['a'], { text: `${'1'.repeat(50_000)}x` });
      expect(out).to.deep.include({ a: null });
    });
  });
});

