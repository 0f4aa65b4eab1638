/**
 * An event (an `emit_event` effect or command) resumes the runs waiting on its wait key (RN §7.1):
 * only runs of the emitter's account (a session id is the client's choice, so another account's
 * session must not be reachable by naming it), never a paused one. A flow's `emit_event` also
 * reaches the scope's wildcard listeners (`evt:<scope>:<id>:*`); the external command does not.
 */
import type { RunLock, RunResumer } from './collaborators.js';
import type { RunStates } from './run-states.js';
import type { RunStore } from './run-store.js';

/** How many awaited event names `available_listeners_in_session` lists at most (the origin's 15). */
const LISTED_NAMES = 15;

export interface EventDeliveryResult {
  /** The runs the event resumed. */
  delivered_to: string[];
  /** Each matching run: `running` when resumed, else `skipped` with why. */
  resumed: Array<{ run_id: string; status: string; error?: string }>;
}

export interface EventDeliverer {
  /** Resumes the account's runs waiting on `waitKey` (and on `wildcardKey`, the scope's `*` key, when given). */
  deliver(account: string, waitKey: string, envelope: Record<string, unknown>, options?: { wildcardKey?: string }): Promise<EventDeliveryResult>;
  /** The event names the account's runs of this session wait for (at most 15, sorted). */
  listenersInSession(account: string, sessionId: string): string[];
}

export interface EventDeliveryDeps {
  runs: Pick<RunStore, 'activeOf'>;
  states: Pick<RunStates, 'load'>;
  lock: RunLock;
  resumer: RunResumer;
}

export class EventDelivery implements EventDeliverer {
  constructor(private readonly deps: EventDeliveryDeps) {}

  async deliver(account: string, waitKey: string, envelope: Record<string, unknown>, options: { wildcardKey?: string } = {}): Promise<EventDeliveryResult> {
    const wildcardKey = options.wildcardKey ?? null;
    const result: EventDeliveryResult = { delivered_to: [], resumed: [] };
    for (const run of this.waitingOnEvents(account)) {
      const key = run.waiting!.wait_key;
      if (key !== waitKey && key !== wildcardKey) continue;
      const outcome = await this.deps.lock.run(run.run_id, async () => this.deps.resumer.resumeWith(this.deps.states.load(run.run_id)!, envelope, key ?? undefined));
      if (outcome === 'resumed') {
        result.delivered_to.push(run.run_id);
        result.resumed.push({ run_id: run.run_id, status: 'running' });
      } else {
        result.resumed.push({ run_id: run.run_id, status: 'skipped', error: outcome });
      }
    }
    return result;
  }

  listenersInSession(account: string, sessionId: string): string[] {
    const prefix = `evt:session:${sessionId}:`;
    const names = new Set<string>();
    for (const run of this.waitingOnEvents(account)) {
      const key = run.waiting!.wait_key ?? '';
      if (key.startsWith(prefix)) names.add(key.slice(prefix.length));
    }
    return [...names].sort().slice(0, LISTED_NAMES);
  }

  private *waitingOnEvents(account: string) {
    // The account's live runs from the active index: a delivery never reads the runs that ended.
    for (const stored of this.deps.runs.activeOf(account)) {
      const run = this.deps.states.load(stored.run_id);
      if (run && run.status === 'waiting' && !run.paused && run.waiting?.reason === 'event') yield run;
    }
  }
}
