/**
 * Where the runner runs, and how the two processes talk when it runs apart:
 * - `keel serve` (default): the runner runs in the server process; nothing crosses processes.
 * - `keel runner` + `keel serve --no-runner` on one data dir: the runner takes the lock and joins the
 *   ledger's live bus as its producer (its live traffic goes to the other processes; their nudges
 *   come to it); the server joins as a consumer (the runner's traffic reaches its streams; it
 *   nudges the runner when a run starts or a command is queued). The bus owns how (today files
 *   under `<data>/live/`, see the ledger plugin).
 */
import path from 'node:path';
import { StartRefusedError, type Logger } from '@keel/plugin-sdk';
import type { LiveBus, LiveMembership } from '@keel/plugin-ledger';
import { RunnerLock } from './runner-lock.js';
import type { Runner } from './runner.js';

/** The process name `keel runner` serves under (`HostInfo.process`); its hang dumps carry it. */
export const RUNNER_PROCESS = 'runner';

/**
 * This process's part: `in-process` runs beside the listener; `elsewhere` leaves runs to a `keel
 * runner` (a server started with `--no-runner`, or a one-shot command); `dedicated` is `keel runner`.
 */
export type RunnerPlace = 'in-process' | 'elsewhere' | 'dedicated';

export interface RunnerWiring {
  /** True when this process executes runs. */
  active: boolean;
  /** Why runs will not start here, or null. */
  warning: string | null;
  kick(runId: string): void;
  kickCommands(): void;
  /** Calls `listener` once this process executes runs (at once when it already does); never when it does not. */
  whenActive(listener: () => void): void;
  start(): void;
  stop(): Promise<void>;
}

export function wireRunner(place: RunnerPlace, dataDir: string, live: LiveBus, runner: Runner, log: Logger): RunnerWiring {
  const lock = new RunnerLock(path.join(dataDir, 'gateway_runner.lock'));
  let active = false;
  let warning: string | null = null;
  let sweep: NodeJS.Timeout | undefined;
  let membership: LiveMembership | null = null;
  let stopped = false;
  const onActive: Array<() => void> = [];
  const call = (listener: () => void) => {
    try {
      listener();
    } catch (err) {
      log.warn('a listener told that this process executes runs failed', { error: (err as Error).message ?? String(err) });
    }
  };

  return {
    get active() {
      return active;
    },
    get warning() {
      return warning;
    },
    kick: (runId) => (active ? runner.schedule(runId) : live.nudge({ kick: runId })),
    kickCommands: () => (active ? runner.kickCommands() : live.nudge({ commands: true })),
    whenActive(listener) {
      if (active) call(listener);
      else onActive.push(listener);
    },
    start() {
      if (place === 'elsewhere') {
        warning = 'No runner runs in this server process (started with --no-runner): the run starts when a `keel runner` on the same data directory picks it up.';
        // Follow a separate runner's traffic so this server's streams stay live.
        membership = live.join('consumer');
        return;
      }
      const got = lock.acquire();
      if (got !== true) {
        const lockFile = path.join(dataDir, 'gateway_runner.lock');
        // `keel runner` exists only to run: idle beside another runner it would only mislead.
        if (place === 'dedicated') throw new StartRefusedError(`Another runner (pid ${got}) holds ${lockFile}: the runs of this data directory are executed there; stop that runner first, or point this one at another --data-dir.`);
        warning = `Another runner (pid ${got}) holds ${lockFile}; runs are executed there.`;
        log.warn('runner not started: another runner holds the lock', { pid: got });
        // That runner's traffic reaches this server's streams, and this server's nudges reach it.
        membership = live.join('consumer');
        return;
      }
      active = true;
      if (place === 'dedicated') {
        membership = live.join('producer', (message) => {
          if (stopped) return;
          const m = message as { kick?: string; commands?: boolean };
          if (typeof m.kick === 'string') runner.schedule(m.kick);
          if (m.commands) runner.kickCommands();
        });
        // A missed file event must not strand a run: a slow sweep re-checks commands and runnable runs.
        sweep = setInterval(() => runner.sweep(), 1000);
        sweep.unref();
      }
      runner.start();
      for (const listener of onActive.splice(0)) call(listener);
    },
    async stop() {
      stopped = true;
      if (sweep) clearInterval(sweep);
      await runner.stop();
      // After the runner: its last traffic (ends of calls it stopped) still goes out.
      await membership?.leave();
      lock.release();
    },
  };
}
