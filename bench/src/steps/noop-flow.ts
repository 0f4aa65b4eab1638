/**
 * The flow measured by default: `on_flow_start` → ten `set_var` exec nodes (each writes one
 * variable from a pin default: in-memory work, no effect, no ledger record of its own) →
 * `on_flow_end`.
 */
import { EXEC_IN, EXEC_OUT, execChain, flowNode, pin, RUNS_PLUGINS, type StepsFlow } from './steps-flow.js';

const STEPS = 10;

export const NOOP_FLOW: StepsFlow = {
  bundleId: 'bench-noop-steps',
  flowId: 'noop10',
  description: `on_flow_start -> ${STEPS} set_var -> on_flow_end`,
  plugins: RUNS_PLUGINS,
  document() {
    const steps = Array.from({ length: STEPS }, (_, i) => flowNode(`s${i + 1}`, 'set_var', [EXEC_IN, pin('name'), pin('value')], [EXEC_OUT, pin('value')], { pinDefaults: { name: `v${i + 1}`, value: i + 1 } }));
    const nodes = [flowNode('start', 'on_flow_start', [], [EXEC_OUT]), ...steps, flowNode('end', 'on_flow_end', [EXEC_IN], [])];
    return { id: this.flowId, nodes, edges: execChain(nodes.map((n) => n.id)) };
  },
  checkOutput: (output) => (output?.success === true ? null : `success is not true: ${JSON.stringify(output)}`),
};
