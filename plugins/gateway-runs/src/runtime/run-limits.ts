/**
 * Per-run limits of the runtime (settings `limits.*` of the gateway-runs plugin): how many steps a
 * run may take and how large its variables may grow. Checked after every step, so a runaway loop
 * (a string doubling, an endless `while`) fails its run with a reason instead of growing memory,
 * disk and CPU without bound. The ledger plugin limits what a run writes to its ledger.
 */
import { formatBytes, jsonSizeWithin } from '@keel/plugin-sdk';
import type { RunState } from './run-state.js';

export interface RunLimitsConfig {
  /** The most a run's variables (its vars, node outputs and loop state) may hold, measured as JSON text. */
  maxVarsBytes: number;
  /** The most steps (nodes executed, effects included) one run may take; scheduler runs are exempt. */
  maxSteps: number;
}

export const DEFAULT_RUN_LIMITS: RunLimitsConfig = { maxVarsBytes: 16 * 1024 * 1024, maxSteps: 250_000 };

export class RunLimits {
  constructor(private readonly config: RunLimitsConfig = DEFAULT_RUN_LIMITS) {}

  /**
   * Counts a step the run just took at `nodeId` and answers why the run must stop, or null.
   * The size walk stops at the limit, so it costs at most `maxVarsBytes` however big vars grew.
   */
  afterStep(run: RunState, nodeId: string | null): string | null {
    run.steps = (run.steps ?? 0) + 1;
    const at = nodeId ? ` at node '${nodeId}'` : '';
    if (run.steps > this.config.maxSteps && run.builtin !== 'scheduler') {
      return `The run took more than ${this.config.maxSteps} steps${at}, the most one run may take (setting \`limits.maxSteps\` of the gateway-runs plugin).`;
    }
    if (jsonSizeWithin(run.vars, this.config.maxVarsBytes) > this.config.maxVarsBytes) {
      return `The run's variables grew larger than ${formatBytes(this.config.maxVarsBytes)}${at}, the most one run may hold (setting \`limits.maxVarsBytes\` of the gateway-runs plugin).`;
    }
    return null;
  }
}
