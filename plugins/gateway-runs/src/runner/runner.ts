/**
 * The runner: ticks runnable runs (one tick in flight per run, through its queue), fires due
 * waits, resumes parents of finished children, and applies queued commands in order, saving its
 * cursor after each one (a bad command never blocks the queue). At start it picks up every run a
 * crash left behind.
 */
import type { Logger } from '@keel/plugin-sdk';
import { isTerminal, type RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { CommandRecord, CommandStore } from './command-store.js';
import type { RunQueue } from './run-queue.js';

/** What the runner needs of the runtime. */
export interface RunDriver {
  load(runId: string): RunState | undefined;
  /** Ticks a run until it waits, ends or has taken its slice. */
  tick(runId: string): Promise<void>;
  /** Ticks a running run, or arms a waiting run's wait_until. */
  wake(runId: string): void;
  /** A wait_until's timer fired. */
  fireWait(runId: string): Promise<void>;
  /** A parent waiting on this finished child resumes with its output. */
  resumeParentOf(child: RunState): Promise<void>;
  /** Fails a run whose work threw an error nothing expected. */
  failUnexpected(runId: string, err: unknown): Promise<void>;
  /** Applies the summary of the run's memory compaction whose child has ended, if any. */
  settleCompaction(run: RunState | undefined): Promise<void>;
}

/** Applies one queued command (throws when it cannot apply: the runner logs it and moves on). */
export interface CommandHandler {
  apply(command: CommandRecord): Promise<void>;
}

export interface RunnerDeps {
  runtime: RunDriver;
  /** Where the runtime schedules runs; the runner works it off. */
  queue: RunQueue;
  applier: CommandHandler;
  runs: Pick<RunStore, 'active' | 'activeIndexed' | 'get'>;
  commands: CommandStore;
  log: Logger;
}

export class Runner {
  private readonly runtime: RunDriver;
  private readonly queue: RunQueue;
  private readonly log: Logger;
  private commandsBusy: Promise<void> | null = null;
  private commandsAgain = false;
  private stopped = false;

  constructor(private readonly deps: RunnerDeps) {
    this.runtime = deps.runtime;
    this.queue = deps.queue;
    this.log = deps.log;
  }

  start(): void {
    this.queue.start({ tick: (runId) => this.tickOnce(runId), fireWait: (runId) => this.guarded(runId, () => this.runtime.fireWait(runId)) });
    for (const run of this.deps.runs.active()) {
      if (run.status === 'running') this.schedule(run.run_id);
      else if (run.waiting?.reason === 'until') this.runtime.wake(run.run_id);
      else if (run.waiting?.reason === 'subworkflow') {
        const child = this.deps.runs.get(String(run.waiting.details?.sub_run_id));
        if (child && isTerminal(child.status)) void this.guarded(run.run_id, () => this.runtime.resumeParentOf(child));
      }
      // A memory compaction whose child ended while no runner ran.
      void this.guarded(run.run_id, () => this.runtime.settleCompaction(run));
    }
    this.kickCommands();
  }

  /** Ticks a run now, or fires its wait_until at `atMs`. */
  schedule(runId: string, atMs?: number): void {
    if (this.stopped) return;
    this.queue.schedule(runId, atMs);
  }

  /** Picks up anything runnable that no event announced (a separate runner's safety net). */
  sweep(): void {
    this.kickCommands();
    // The active index, not a read of every run: a sweep runs every few seconds for as long as the runner does.
    for (const run of this.deps.runs.activeIndexed()) if (run.status === 'running' && !this.queue.ticking(run.run_id)) this.schedule(run.run_id);
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
    const pending = [...this.queue.stop(), ...(this.commandsBusy ? [this.commandsBusy] : [])];
    await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }

  private async tickOnce(runId: string): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.guarded(runId, async () => {
      // A finished compaction child schedules its parent: its summary is applied here.
      await this.runtime.settleCompaction(this.runtime.load(runId));
      const run = this.runtime.load(runId);
      if (run?.status === 'waiting' && run.waiting?.reason === 'subworkflow') {
        const child = this.deps.runs.get(String(run.waiting.details?.sub_run_id));
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

  private async drainCommands(): Promise<void> {
    const { commands } = this.deps;
    for (;;) {
      const batch = commands.after(commands.cursor());
      if (!batch.length || this.stopped) return;
      for (const command of batch) {
        try {
          await this.deps.applier.apply(command);
        } catch (err) {
          this.log.warn('command not applied', { command_id: command.command_id, type: command.type, run_id: command.run_id, error: (err as Error).message });
        }
        await commands.saveCursor(command.seq);
      }
    }
  }
}
