/**
 * The runs due a tick, and the timers of waits until a time: one tick in flight per run (a tick
 * asked for meanwhile runs after it). The runtime schedules into the queue; the runner works it off
 * once started, and until then (or where no runner runs) a schedule is dropped: the runner's start
 * picks up every runnable run anyway.
 */
import type { RunScheduler } from '../runtime/collaborators.js';

/** What the queue does with a run that is due. */
export interface QueueWork {
  /** Ticks the run (a run is ticked by one call at a time). */
  tick(runId: string): Promise<void>;
  /** Fires the run's wait_until whose time has come. */
  fireWait(runId: string): Promise<void>;
}

export class RunQueue implements RunScheduler {
  private work: QueueWork | null = null;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  /** From now on due runs are handed to `work`. */
  start(work: QueueWork): void {
    this.work = work;
  }

  /**
   * Ticks a run now, or fires its wait_until at `atMs`. A deadline already past (it passed while no
   * runner was up, or while the run was paused) fires at once: a tick alone would leave it waiting.
   */
  schedule(runId: string, atMs?: number): void {
    const work = this.work;
    if (!work) return;
    if (atMs !== undefined) {
      clearTimeout(this.timers.get(runId));
      const timer = setTimeout(() => {
        this.timers.delete(runId);
        void work.fireWait(runId);
      }, Math.min(Math.max(0, atMs - Date.now()), 2 ** 31 - 1));
      timer.unref();
      this.timers.set(runId, timer);
      return;
    }
    if (this.inFlight.has(runId)) {
      this.again.add(runId);
      return;
    }
    const ticking = work.tick(runId).finally(() => {
      this.inFlight.delete(runId);
      if (this.again.delete(runId)) this.schedule(runId);
    });
    this.inFlight.set(runId, ticking);
  }

  /** Whether the run has a tick in flight. */
  ticking(runId: string): boolean {
    return this.inFlight.has(runId);
  }

  /** Stops handing out work; resolves with the ticks still in flight. */
  stop(): Promise<void>[] {
    this.work = null;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    return [...this.inFlight.values()];
  }
}
