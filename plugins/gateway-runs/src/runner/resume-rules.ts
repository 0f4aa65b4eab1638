/**
 * When a `resume` command changes nothing, and why (reference §3.2, §3.4, §6.2): a resume never
 * sits in the queue doing nothing. The commands route refuses it up front with this sentence; the
 * runner refuses it again if the run changed while the command waited in the queue.
 * - Without `payload.payload` it lifts a pause of the run tree (and wakes a recurrent schedule
 *   waiting for its next occurrence); a tree that is not paused has nothing to lift.
 * - With `payload.payload` it answers the wait of that one run: the run must be waiting, not paused,
 *   and a given `wait_key` must be the run's own.
 */
import { isTerminal, type RunState, type WaitState } from '../runtime/run-state.js';

export const PAYLOAD_NOT_AN_OBJECT = 'payload.payload must be a JSON object: the answer to the run\'s wait, such as {"response": "..."} for ask_user.';

/** The run's wait key a resume payload names (`wait_key`, alias `waitKey`), or undefined. */
export function resumeWaitKey(payload: Record<string, unknown>): string | undefined {
  const key = payload.wait_key ?? payload.waitKey;
  return typeof key === 'string' && key ? key : undefined;
}

/** A scheduled parent with an interval, waiting until its next occurrence: a resume makes it due now. */
export function isRecurrentScheduleWait(run: RunState): boolean {
  if (run.builtin !== 'scheduler' || run.status !== 'waiting' || run.waiting?.reason !== 'until') return false;
  const meta = (run.vars._meta as { schedule?: { interval_ms?: number | null } } | undefined)?.schedule;
  return Boolean(meta?.interval_ms);
}

/** Why this resume would change nothing for `tree` (the target run first, then its descendants), or null when it applies. */
export function resumeRefusal(tree: RunState[], payload: Record<string, unknown>): string | null {
  const run = tree[0];
  if (!run) return 'The run does not exist.';
  if (isTerminal(run.status)) return `Run ${run.run_id} has ended (${run.status}); there is nothing to resume.`;
  if (payload.payload === undefined) {
    if (tree.some((r) => r.paused && !isTerminal(r.status)) || isRecurrentScheduleWait(run)) return null;
    return `Run ${run.run_id} is not paused, and a resume without payload.payload only lifts a pause; the run ${describe(run)}.`;
  }
  if (payload.payload === null || typeof payload.payload !== 'object' || Array.isArray(payload.payload)) {
    return PAYLOAD_NOT_AN_OBJECT;
  }
  if (run.paused) return `Run ${run.run_id} is paused; lift the pause first with a resume without payload.payload, then answer its wait.`;
  if (run.status !== 'waiting' || !run.waiting) return `Run ${run.run_id} is running, not waiting; a resume with payload.payload answers a wait, so send it once the run waits.`;
  const key = resumeWaitKey(payload);
  if (key && key !== run.waiting.wait_key) return `The wait_key '${key}' is not the wait of run ${run.run_id}, which ${waitText(run.waiting)}${run.waiting.wait_key ? ` (wait_key '${run.waiting.wait_key}')` : ''}.`;
  return null;
}

function describe(run: RunState): string {
  if (run.status !== 'waiting' || !run.waiting) return 'is running';
  const hint = run.waiting.reason === 'until' ? '' : `; to answer it, send payload.payload${run.waiting.wait_key ? ` with wait_key '${run.waiting.wait_key}'` : ''}`;
  return `${waitText(run.waiting)}${hint}`;
}

function waitText(wait: WaitState): string {
  switch (wait.reason) {
    case 'until':
      return `waits until ${wait.until} and resumes by itself then`;
    case 'user':
      return 'waits for an answer from the user';
    case 'event':
      return 'waits for an event';
    case 'subworkflow':
      return `waits for its child run ${String(wait.details?.sub_run_id ?? '')}`;
    default:
      return `waits (${wait.reason})`;
  }
}
