/**
 * The flow each turn of the benchmark's session runs: `on_flow_start` → `on_flow_end`, the answer
 * (`response`) and the context it was started with passed through, so a turn completes with
 * `output.response` and a replaying run shows what was seeded.
 */
import { dataEdge, EXEC_IN, EXEC_OUT, execChain, flowNode, pin, RUNS_PLUGINS, type StepsFlow } from '../steps/steps-flow.js';

const PINS = ['response', 'context'];

export const ECHO_FLOW: StepsFlow = {
  bundleId: 'bench-history-echo',
  flowId: 'echo',
  description: 'on_flow_start -> on_flow_end passing response and context through',
  plugins: RUNS_PLUGINS,
  document() {
    const nodes = [flowNode('start', 'on_flow_start', [], [EXEC_OUT, ...PINS.map((p) => pin(p))]), flowNode('end', 'on_flow_end', [EXEC_IN, ...PINS.map((p) => pin(p))], [])];
    return { id: this.flowId, nodes, edges: [...execChain(['start', 'end']), ...PINS.map((p) => dataEdge(`start.${p}`, `end.${p}`))] };
  },
  checkOutput: (output) => (typeof output?.response === 'string' ? null : `no response: ${JSON.stringify(output)}`),
};
