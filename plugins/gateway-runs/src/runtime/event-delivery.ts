/** An event (an `emit_event` effect or command) resumes every run waiting on its wait key. */
import type { RunLock, RunResumer } from './collaborators.js';
import type { RunStates } from './run-states.js';
import type { RunStore } from './run-store.js';

/** Resumes every waiting run with this event wait key; resolves with their ids. */
export interface EventDeliverer {
  deliverEvent(waitKey: string, envelope: Record<string, unknown>): Promise<string[]>;
}

export interface EventDeliveryDeps {
  runs: Pick<RunStore, 'active'>;
  states: Pick<RunStates, 'load'>;
  lock: RunLock;
  resumer: RunResumer;
}

export class EventDelivery implements EventDeliverer {
  constructor(private readonly deps: EventDeliveryDeps) {}

  async deliverEvent(waitKey: string, envelope: Record<string, unknown>): Promise<string[]> {
    const resumed: string[] = [];
    for (const stored of this.deps.runs.active()) {
      const run = this.deps.states.load(stored.run_id)!;
      if (run.status !== 'waiting' || run.paused || run.waiting?.reason !== 'event' || run.waiting.wait_key !== waitKey) continue;
      const outcome = await this.deps.lock.run(run.run_id, async () => {
        return this.deps.resumer.resumeWith(this.deps.states.load(run.run_id)!, envelope, waitKey);
      });
      if (outcome === 'resumed') resumed.push(run.run_id);
    }
    return resumed;
  }
}
