/**
 * Per-run limits of the runtime (settings `limits.*` of the gateway-runs plugin): how many steps a
 * run may take and how large its variables may grow. Checked after every step, so a runaway loop
 * (a string doubling, an endless `while`) fails its run with a reason instead of growing memory,
 * disk and CPU without bound. The ledger plugin limits what a run writes to its ledger.
 *
 * Measuring all of a run's variables at every step would cost as much as the variables are big
 * (half a millisecond a step for 4 MB of memory, against some 15 µs for the step itself), so a run
 * keeps a headroom: the limit minus its size at the last full measurement. Each step spends it by
 * what it added (its output counted three times: as the node's output, the last output and a
 * variable it set); a full measurement is due only once the headroom is spent.
 */
import { formatBytes, JSON_TOO_DEEP, jsonSizeWithin } from '@keel/plugin-sdk';
import type { RunState } from './run-state.js';

export interface RunLimitsConfig {
  /** The most a run's variables (its vars, node outputs and loop state) may hold, measured as JSON text. */
  maxVarsBytes: number;
  /** The most steps (nodes executed, effects included) one run may take; scheduler runs are exempt. */
  maxSteps: number;
  /** The deepest nesting of arrays and objects a run's values may reach (saving a run's state recurses). */
  maxVarsDepth: number;
  /**
   * The most time (ms) the runtime may spend stepping one run, summed over all its slices and
   * restarts: steps that stay within `maxSteps` and `maxVarsBytes` can still cost quadratic time
   * (an `array_append` loop copies its array each round). Scheduler runs are exempt.
   */
  maxRunCpuMs: number;
  /** The most root runs one non-admin account may have running or waiting at once (`POST /runs/start` answers 429 past it). */
  maxActiveRunsPerAccount: number;
  /** The most slots an admin may reserve for one account (`/admin/runtime-reservations`), so a typo cannot lift the cap out of reach. */
  maxReservedActiveRuns: number;
  /** The most failed or cancelled descendants a run's `child_failures` lists (the first ones; a loop of failing subflows must not grow the run row without bound). */
  maxChildFailuresListed: number;
  /** The most `on_event` listener runs (they outlive their root) one non-admin account may have running or waiting; a start past it answers 429. */
  maxListenerRunsPerAccount: number;
  /** How many runs deep below its root a child run may be (subflows, agents); a deeper one is not started and its parent's effect fails. */
  maxRunDepth: number;
  /** How many runs one root may have below it in all (a recursion that branches grows exponentially within maxRunDepth). */
  maxRunsPerTree: number;
  /** How many session archive/unarchive events one account's history keeps (the oldest go first). */
  maxArchiveHistoryPerAccount: number;
  /** How many runs one `GET /runs` request may look at (read, or dismissed from an index) before it stops and answers `truncated: true`. */
  maxListScan: number;
}

export const DEFAULT_RUN_LIMITS: RunLimitsConfig = { maxVarsBytes: 16 * 1024 * 1024, maxSteps: 250_000, maxVarsDepth: 256, maxRunCpuMs: 60_000, maxActiveRunsPerAccount: 64, maxReservedActiveRuns: 1024, maxChildFailuresListed: 100, maxListenerRunsPerAccount: 256, maxRunDepth: 32, maxRunsPerTree: 10_000, maxArchiveHistoryPerAccount: 1000, maxListScan: 5_000 };

/** What a step added to the run's variables when the runtime cannot tell (built-in runs): measure them all. */
export const UNKNOWN_ADDITIONS = Symbol('unknown additions');

/** A step adds its output up to this many times to the run's variables (node output, last output, a variable). */
const COPIES_PER_OUTPUT = 3;

export class RunLimits {
  /** Per live run state: bytes its variables may still grow before a full measurement. */
  private readonly headroom = new WeakMap<RunState, number>();

  constructor(private readonly config: RunLimitsConfig = DEFAULT_RUN_LIMITS) {}

  /** `limits.maxChildFailuresListed`. */
  get maxChildFailuresListed(): number {
    return this.config.maxChildFailuresListed ?? DEFAULT_RUN_LIMITS.maxChildFailuresListed;
  }

  /** `limits.maxRunsPerTree`. */
  get maxRunsPerTree(): number {
    return this.config.maxRunsPerTree ?? DEFAULT_RUN_LIMITS.maxRunsPerTree;
  }

  /** `limits.maxRunDepth`. */
  get maxRunDepth(): number {
    return this.config.maxRunDepth ?? DEFAULT_RUN_LIMITS.maxRunDepth;
  }

  /**
   * Adds `elapsedMs` of stepping to the run's total (kept on its state, so it counts across
   * slices and restarts) and answers why the run must stop, or null.
   */
  afterCpu(run: RunState, nodeId: string | null, elapsedMs: number): string | null {
    run.cpu_ms = (run.cpu_ms ?? 0) + elapsedMs;
    if (run.cpu_ms <= this.config.maxRunCpuMs || run.builtin === 'scheduler') return null;
    const at = nodeId ? ` at node '${nodeId}'` : '';
    return `The run spent more than ${formatMs(this.config.maxRunCpuMs)} of processing time stepping${at}, the most one run may spend (setting \`limits.maxRunCpuMs\` of the gateway-runs plugin).`;
  }

  /**
   * Counts a step the run just took at `nodeId`, which added `added` to its variables (the step's
   * output, a new loop's items; null for nothing), and answers why the run must stop, or null.
   */
  afterStep(run: RunState, nodeId: string | null, added: unknown): string | null {
    run.steps = (run.steps ?? 0) + 1;
    const at = nodeId ? ` at node '${nodeId}'` : '';
    if (run.steps > this.config.maxSteps && run.builtin !== 'scheduler') {
      return `The run took more than ${this.config.maxSteps} steps${at}, the most one run may take (setting \`limits.maxSteps\` of the gateway-runs plugin).`;
    }
    const max = this.config.maxVarsBytes;
    const tooDeep = `The run's variables nest arrays and objects more than ${this.config.maxVarsDepth} levels deep${at}, the most one run may hold (setting \`limits.maxVarsDepth\` of the gateway-runs plugin).`;
    let room = this.headroom.get(run);
    if (room !== undefined && added !== UNKNOWN_ADDITIONS) {
      const grown = jsonSizeWithin(added, room, this.config.maxVarsDepth);
      if (grown === JSON_TOO_DEEP) return tooDeep;
      room -= COPIES_PER_OUTPUT * grown;
    }
    if (room === undefined || room < 0 || added === UNKNOWN_ADDITIONS) {
      // The walk stops at the limit, so it costs at most `maxVarsBytes` however big the variables grew.
      const size = jsonSizeWithin(run.vars, max, this.config.maxVarsDepth);
      if (size === JSON_TOO_DEEP) {
        this.headroom.delete(run);
        return tooDeep;
      }
      if (size > max) {
        this.headroom.delete(run);
        return `The run's variables grew larger than ${formatBytes(max)}${at}, the most one run may hold (setting \`limits.maxVarsBytes\` of the gateway-runs plugin).`;
      }
      room = max - size;
    }
    this.headroom.set(run, room);
    return null;
  }
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
