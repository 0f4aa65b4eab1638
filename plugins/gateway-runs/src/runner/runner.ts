/**
 * The runner: ticks runnable runs (one tick in flight per run), fires due waits, resumes parents
 * of finished children, and applies queued commands in order, saving its cursor after each one
 * (a bad command never blocks the queue). At start it picks up every run a crash left behind.
 */
import type { Logger } from '@keel/plugin-sdk';
import { isTerminal } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { Runtime } from '../runtime/runtime.js';
import type { CommandApplier } from './apply-command.js';
import type { CommandStore } from './command-store.js';

export class Runner {
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private commandsBusy: Promise<void> | null = null;
  private commandsAgain = false;
  private stopped = false;
  runtime!: Runtime;
  applier!: CommandApplier;

  constructor(private readonly runs: RunStore, private readonly commands: CommandStore, private readonly log: Logger) {}

  start(): void {
    for (const run of this.runs.active()) {
      if (run.status === 'running') this.schedule(run.run_id);
      else if (run.waiting?.reason === 'until') this.armWait(run.run_id);
      else if (run.waiting?.reason === 'subworkflow') {
        const child = this.runs.get(String(run.waiting.details?.sub_run_id));
        if (child && isTerminal(child.status)) void this.guarded(run.run_id, () => this.runtime.resumeParentOf(child));
      }
      // A memory compaction whose child ended while no runner ran.
      const compactor = this.runtime.memory.endedChild(run);
      if (compactor) void this.guarded(run.run_id, () => this.runtime.memory.settle(compactor));
    }
    this.kickCommands();
  }

  /** Ticks a running run, or arms a waiting run's wait_until (a resume after a pause). */
  wake(runId: string): void {
    if (this.runtime.load(runId)?.status === 'running') this.schedule(runId);
    else this.armWait(runId);
  }

  /** Arms the timer of a run waiting until a time (fires at once when the time has passed). */
  armWait(runId: string): void {
    const wait = this.runtime.waitOf(runId);
    if (wait?.reason === 'until' && wait.until) this.schedule(runId, Date.parse(wait.until));
  }

  /** Picks up anything runnable that no event announced (a separate runner's safety net). */
  sweep(): void {
    this.kickCommands();
    for (const run of this.runs.active()) if (run.status === 'running' && !this.inFlight.has(run.run_id)) this.schedule(run.run_id);
  }

  /**
   * Ticks a run now, or fires its wait_until at `atMs`. A deadline already past (it passed while no
   * runner was up, or while the run was paused) fires at once: a tick alone would leave it waiting.
   */
  schedule(runId: string, atMs?: number): void {
    if (this.stopped) return;
    if (atMs !== undefined) {
      clearTimeout(this.timers.get(runId));
      const timer = setTimeout(() => {
        this.timers.delete(runId);
        void this.guarded(runId, () => this.fireUntil(runId));
      }, Math.min(Math.max(0, atMs - Date.now()), 2 ** 31 - 1));
      timer.unref();
      this.timers.set(runId, timer);
      return;
    }
    if (this.inFlight.has(runId)) {
      this.again.add(runId);
      return;
    }
    const work = this.tickOnce(runId).finally(() => {
      this.inFlight.delete(runId);
      if (this.again.delete(runId)) this.schedule(runId);
    });
    this.inFlight.set(runId, work);
  }

  kickCommands(): void {
    if (this.stopped) return;
    if (this.commandsBusy) {
      this.commandsAgain = true;
      return;
    }
    this.commandsBusy = this.drainCommands().finally(() => {
      this.commandsBusy = null;
      if (this.commandsAgain) {
        this.commandsAgain = false;
        this.kickCommands();
      }
    });
  }

  async stop(timeoutMs = 5000): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    const pending = [...this.inFlight.values(), ...(this.commandsBusy ? [this.commandsBusy] : [])];
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  private async tickOnce(runId: string): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.guarded(runId, async () => {
      // A finished compaction child schedules its parent: its summary is applied here.
      const compactor = this.runtime.memory.endedChild(this.runtime.load(runId));
      if (compactor) await this.runtime.memory.settle(compactor);
      const run = this.runtime.load(runId);
      if (run?.status === 'waiting' && run.waiting?.reason === 'subworkflow') {
        const child = this.runs.get(String(run.waiting.details?.sub_run_id));
        if (child && isTerminal(child.status)) await this.runtime.resumeParentOf(child);
      }
      await this.runtime.tick(runId);
      const after = this.runtime.load(runId);
      if (after && isTerminal(after.status)) await this.runtime.resumeParentOf(after);
    });
  }

  /**
   * Runs the runner's `work` on a run. An error it throws would, left alone, fail the same way at
   * every tick and restart (or, from a timer, reject with no one to catch it): the run fails with
   * the reason instead.
   */
  private async guarded(runId: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      // While the kernel stops, storage closes under in-flight ticks: not the run's fault, it continues at the next start.
      if (this.stopped) {
        this.log.warn('run tick interrupted by stop', { run_id: runId, error: (err as Error).message });
        return;
      }
      // Anything else would fail the same way at every tick and restart: the run fails with the reason.
      this.log.error('run tick failed', { run_id: runId, err });
      try {
        await this.runtime.failUnexpected(runId, err);
        const after = this.runtime.load(runId);
        if (after && isTerminal(after.status)) await this.runtime.resumeParentOf(after);
      } catch (again) {
        this.log.error('failed run could not be ended', { run_id: runId, err: again });
      }
    }
  }

  private async fireUntil(runId: string): Promise<void> {
    await this.runtime.lock.run(runId, async () => {
      const run = this.runtime.load(runId);
      if (!run || run.status !== 'waiting' || run.waiting?.reason !== 'until') return;
      if (Date.parse(run.waiting.until ?? '') > Date.now()) return this.schedule(runId, Date.parse(run.waiting.until!));
      await this.runtime.resumeWith(run, { until: run.waiting.until, waited: true });
    });
  }

  private async drainCommands(): Promise<void> {
    for (;;) {
      const batch = this.commands.after(this.commands.cursor());
      if (!batch.length || this.stopped) return;
      for (const command of batch) {
        try {
          await this.applier.apply(command);
        } catch (err) {
          this.log.warn('command not applied', { command_id: command.command_id, type: command.type, run_id: command.run_id, error: (err as Error).message });
        }
        await this.commands.saveCursor(command.seq);
      }
    }
  }
}
