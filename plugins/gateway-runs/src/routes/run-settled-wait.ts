/**
 * `wait` on `POST /runs/start` (issue 21 item 3): the start answers once the run has settled (ended,
 * or with `until: 'waiting'` also stopped for outside input), so a client needs one request where it
 * needed a start and a stream. Push-driven: the wait hears the run tree's live bus (the ledger's
 * appends and terminal marks, also those a separate `keel runner` publishes) and re-reads the run's
 * committed state (and the child it waits on) on each record of the tree; no timer re-reads anything. The subscription is made
 * before the first look, so an end between the start and the subscription is seen by that look and
 * one after it is heard. A client that goes away ends its wait at once.
 */
import { badRequest, serviceUnavailable } from '@keel/plugin-sdk';
import type { LiveBus, LiveBusMessage } from '@keel/plugin-ledger';
import { isTerminal, type RunState } from '../runtime/run-state.js';

/** The `startWait` settings of the plugin's config. */
export interface StartWaitSettings {
  /** The longest `wait.timeout_s` a start may ask for (also the wait of one that names none). */
  maxTimeoutS: number;
  /** Start requests one process holds waiting at once; past it a start with `wait` answers 503. */
  maxWaiters: number;
}

export const DEFAULT_START_WAIT: StartWaitSettings = { maxTimeoutS: 300, maxWaiters: 1000 };
/** The longest `startWait.maxTimeoutS`: a Node timer holds at most 2^31 - 1 ms (about 24.8 days). */
export const MAX_START_WAIT_S = 2_147_483;

export type WaitUntil = 'completed' | 'waiting';

/** The `wait` field of the start request (its limits are settings, checked in `admit`). */
export const startWaitJson = {
  type: 'object',
  additionalProperties: false,
  description: "Answer once the run has settled instead of at once: 'completed' (default) when it ends (completed, failed or cancelled), 'waiting' also when it waits for a user's answer or an event (its own, or asked by a child run it waits on); at most timeout_s seconds (default and most: setting startWait.maxTimeoutS).",
  properties: {
    until: { enum: ['completed', 'waiting'], default: 'completed' },
    timeout_s: { type: 'number', exclusiveMinimum: 0 },
  },
} as const;

/** What a start with `wait` adds to its answer: the run as `GET /runs/{run_id}` shows it, and whether it settled. */
export const startWaitAnswerJson = {
  run: {
    type: 'object',
    description: "With `wait`: the run as GET /runs/{run_id} answers it when the wait ended.",
    required: ['run_id', 'status'],
    properties: { run_id: { type: 'string' }, status: { type: 'string' } },
  },
  wait: {
    type: 'object',
    description: 'With `wait`: what was awaited, and false in `reached` when timeout_s passed first (the run goes on).',
    required: ['until', 'reached'],
    properties: { until: { enum: ['completed', 'waiting'] }, reached: { type: 'boolean' } },
  },
} as const;

export interface WaitRequest {
  until?: WaitUntil;
  timeout_s?: number;
}

export interface Settled {
  /** The run's committed state when the wait ended. */
  run: RunState;
  reached: boolean;
}

export interface RunSettledWaitsDeps {
  live: Pick<LiveBus, 'subscribe'>;
  /** The run's committed state (LMDB): what a message announces is durable there, whichever process wrote it. */
  read(runId: string): RunState | undefined;
  settings: StartWaitSettings;
}

/** How many runs deep a wait follows runs waiting on their child (the default `limits.maxRunDepth`). */
const MAX_CHILD_CHAIN = 32;

/**
 * Whether `run` is where a wait `until` ends: an end, or with 'waiting' a wait for a user's answer or
 * an event, asked by the run itself or by the child it waits on (a `subflow` or `agent` node's child
 * run, followed down): either way the client must answer before the run goes on. A pause is not one
 * (it writes no record, so a wait would not hear it; the run goes on when resumed), nor a timer.
 */
export function reachedBy(run: RunState, until: WaitUntil, read: (runId: string) => RunState | undefined): boolean {
  if (isTerminal(run.status)) return true;
  if (until !== 'waiting') return false;
  let at: RunState | undefined = run;
  for (let depth = 0; at && depth <= MAX_CHILD_CHAIN; depth++) {
    const wait = at.status === 'waiting' ? at.waiting : null;
    if (wait?.reason === 'user' || wait?.reason === 'event') return wait.details?.kind !== 'pause';
    if (wait?.reason !== 'subworkflow' || typeof wait.details?.sub_run_id !== 'string') return false;
    at = read(wait.details.sub_run_id);
  }
  return false;
}

/** A place among the process's waiting starts, taken before the run starts; released once. */
export interface WaitPlace {
  until: WaitUntil;
  /** Waits for the run (a root run) to settle, for the timeout, or until `signal` aborts (the client left). */
  settle(runId: string, signal: AbortSignal): Promise<Settled>;
  release(): void;
}

export class RunSettledWaits {
  private held = 0;

  constructor(private readonly deps: RunSettledWaitsDeps) {}

  /**
   * Checks the request's `wait` against the settings (400 naming the field) and takes a place among
   * the process's waiting starts (503 with Retry-After when they are all taken). Called before the run
   * starts, so a refused wait starts nothing.
   */
  admit(wait: WaitRequest): WaitPlace {
    const { maxTimeoutS, maxWaiters } = this.deps.settings;
    const timeoutS = wait.timeout_s ?? maxTimeoutS;
    if (!(timeoutS > 0) || !Number.isFinite(timeoutS)) {
      throw badRequest('wait.timeout_s must be a number of seconds above 0.', { code: 'invalid_request', field: 'body.wait.timeout_s' });
    }
    if (timeoutS > maxTimeoutS) {
      throw badRequest(`wait.timeout_s ${timeoutS} is longer than the ${maxTimeoutS} s a start may wait (setting \`startWait.maxTimeoutS\` of the gateway-runs plugin); ask for less, or follow the run's ledger stream.`, { code: 'invalid_request', field: 'body.wait.timeout_s' });
    }
    if (this.held >= maxWaiters) {
      throw serviceUnavailable(`This gateway already holds ${this.held} start requests waiting for their runs, the most it holds at once (setting \`startWait.maxWaiters\` of the gateway-runs plugin); retry shortly, or start without wait and follow the run's ledger stream.`, { code: 'too_many_waiting_starts', headers: { 'retry-after': '1' } });
    }
    this.held++;
    let released = false;
    const until = wait.until ?? 'completed';
    return {
      until,
      settle: (runId, signal) => this.settle(runId, until, timeoutS * 1000, signal),
      release: () => {
        if (released) return;
        released = true;
        this.held--;
      },
    };
  }

  private settle(runId: string, until: WaitUntil, timeoutMs: number, signal: AbortSignal): Promise<Settled> {
    const { live, read } = this.deps;
    return new Promise<Settled>((resolve, reject) => {
      let done = false;
      let lookQueued = false;
      // On the timeout or a disconnect `reached` stays false: the run as it is, still going.
      const finish = (reached: boolean, run = read(runId)) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        unsubscribe();
        signal.removeEventListener('abort', onGone);
        if (run) resolve({ run, reached });
        else reject(new Error(`run ${runId} disappeared while a start waited for it`));
      };
      const look = () => {
        lookQueued = false;
        if (done) return;
        const run = read(runId);
        if (run && reachedBy(run, until, read)) finish(true, run);
      };
      // The run's own records and end; with 'waiting' also its tree's (a child it waits on may ask the user). Deltas change nothing.
      // One look per burst (a commit publishes each of its records), after the publisher's loop.
      const onMessage = (message: LiveBusMessage) => {
        if (done || lookQueued || message.type === 'live' || (until === 'completed' && message.run_id !== runId)) return;
        lookQueued = true;
        queueMicrotask(look);
      };
      const onGone = () => finish(false);
      // Subscribed before the first look: an end before this line is seen by the look, one after it is heard.
      const unsubscribe = live.subscribe(runId, onMessage);
      const timer = setTimeout(() => finish(false), timeoutMs);
      signal.addEventListener('abort', onGone, { once: true });
      if (signal.aborted) finish(false);
      else look();
    });
  }
}
