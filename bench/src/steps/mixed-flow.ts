/**
 * The mixed flow (issue 13): ten exec steps of the node types real origin flows use most — `code`
 * (Python in the code plugin's sandbox, no ledger record), `memory_note` (a durable effect of the
 * memory plugin, two ledger records) and `set_var` — fed by the pure helpers `set` and
 * `string_template`, which are evaluated again on every read.
 */
import { dataEdge, EXEC_IN, EXEC_OUT, execChain, flowNode, pin, RUNS_PLUGINS, type StepsFlow } from './steps-flow.js';

/** Exec steps between start and end, in order: c = code, m = memory_note, v = set_var. */
const STEPS = ['c', 'v', 'm', 'c', 'v', 'm', 'c', 'v', 'm', 'c'] as const;

export const MIXED_FLOW: StepsFlow = {
  bundleId: 'bench-mixed-steps',
  flowId: 'mixed10',
  description: `on_flow_start -> 10 steps (4 code, 3 memory_note, 3 set_var; fed by set and string_template) -> on_flow_end`,
  plugins: [...RUNS_PLUGINS, '@keel/plugin-code', '@keel/plugin-memory'],
  document() {
    const nodes: ReturnType<typeof flowNode>[] = [
      flowNode('start', 'on_flow_start', [], [EXEC_OUT, pin('topic')], { pinDefaults: { topic: 'tea' } }),
      // Pure helpers: an object with the topic and a counter, and a sentence made from it.
      flowNode('obj', 'set', [pin('object'), pin('key'), pin('value')], [pin('result')], { pinDefaults: { object: { n: 1 }, key: 'topic' } }),
      flowNode('text', 'string_template', [pin('template'), pin('vars')], [pin('result')], { pinDefaults: { template: 'note about {{ topic | upper }} #{{ n }}' } }),
    ];
    const edges = [dataEdge('start.topic', 'obj.value'), dataEdge('obj.result', 'text.vars')];
    const ids = ['start'];
    let previousCode: string | null = null;
    STEPS.forEach((kind, i) => {
      const id = `${kind}${i + 1}`;
      ids.push(id);
      if (kind === 'c') {
        nodes.push(flowNode(id, 'code', [EXEC_IN, pin('input'), pin('n')], [EXEC_OUT, pin('output'), pin('result'), pin('success')], {
          codeBody: 'total = 0\nfor i in range(int(n or 0) + 50):\n    total += i * i\nreturn {"total": total, "words": len(str(input).split())}',
          functionName: 'transform',
          pinDefaults: { n: i },
        }));
        edges.push(dataEdge('text.result', `${id}.input`));
        previousCode = id;
      } else if (kind === 'm') {
        nodes.push(flowNode(id, 'memory_note', [EXEC_IN, pin('content'), pin('scope'), pin('tags')], [EXEC_OUT, pin('note_id')], { pinDefaults: { scope: 'run', tags: { topic: 'tea' } } }));
        edges.push(dataEdge('text.result', `${id}.content`));
      } else {
        nodes.push(flowNode(id, 'set_var', [EXEC_IN, pin('name'), pin('value')], [EXEC_OUT, pin('value')], { pinDefaults: { name: `total${i + 1}` } }));
        edges.push(dataEdge(`${previousCode}.result`, `${id}.value`));
      }
    });
    nodes.push(flowNode('end', 'on_flow_end', [EXEC_IN, pin('last'), pin('note')], []));
    ids.push('end');
    edges.push(dataEdge(`${previousCode}.result`, 'end.last'), dataEdge('m9.note_id', 'end.note'));
    return { id: this.flowId, nodes, edges: [...execChain(ids), ...edges] };
  },
  checkOutput(output) {
    const last = output?.last as { total?: unknown; words?: unknown } | undefined;
    if (output?.success !== true) return `success is not true: ${JSON.stringify(output)}`;
    if (typeof last?.total !== 'number' || last.words !== 4) return `the last code step's result is wrong: ${JSON.stringify(last)}`;
    if (typeof output.note !== 'string' || !/^[0-9a-f]{32}$/.test(output.note)) return `the last memory_note's id is not 32 hex: ${JSON.stringify(output.note)}`;
    return null;
  },
};
