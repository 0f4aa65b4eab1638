/**
 * The recorded flow bench/peers compares with Restate's `ctx.run` and DBOS's `runStep` (issue 21):
 * `on_flow_start` → ten `answer_user` effect nodes (`exec-in, message, level` → `exec-out, message`;
 * each a durable effect with its own ledger records, kernel-handled, nothing leaves the machine) →
 * `on_flow_end`.
 */
import { EXEC_IN, EXEC_OUT, execChain, flowNode, pin, RUNS_PLUGINS, type StepsFlow } from './steps-flow.js';

const STEPS = 10;

export const ANSWER_FLOW: StepsFlow = {
  bundleId: 'bench-answer-steps',
  flowId: 'answer10',
  description: `on_flow_start -> ${STEPS} answer_user -> on_flow_end`,
  plugins: RUNS_PLUGINS,
  document() {
    // A distinct message per node: an identical effect at the same node would be reused, not recorded.
    const steps = Array.from({ length: STEPS }, (_, i) => flowNode(`a${i + 1}`, 'answer_user', [EXEC_IN, pin('message'), pin('level')], [EXEC_OUT, pin('message')], { pinDefaults: { message: `step ${i + 1}`, level: 'message' } }));
    const nodes = [flowNode('start', 'on_flow_start', [], [EXEC_OUT]), ...steps, flowNode('end', 'on_flow_end', [EXEC_IN], [])];
    return { id: this.flowId, nodes, edges: execChain(nodes.map((n) => n.id)) };
  },
  checkOutput: (output) => (output?.success === true ? null : `success is not true: ${JSON.stringify(output)}`),
};
