/**
 * Where the runner runs, and how the two processes talk when it runs apart:
 * - `keel serve` (default): the runner runs in the server process; nothing crosses processes.
 * - `keel runner` + `keel serve --no-runner` on one data dir: the runner takes the lock, copies its
 *   live traffic to `<data>/live/<root>.jsonl` and follows the server's nudges in `_wake.jsonl`; the
 *   server follows the runner's files into its own hub (its SSE streams) and nudges the runner.
 */
import path from 'node:path';
import { StartRefusedError, type Logger } from '@keel/plugin-sdk';
import type { LiveHub, TapMessage } from '@keel/plugin-ledger';
import { LiveFiles, WAKE_FILE } from './live-files.js';
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
  start(): void;
  stop(): Promise<void>;
}

export function wireRunner(place: RunnerPlace, dataDir: string, hub: LiveHub, runner: Runner, log: Logger): RunnerWiring {
  const live = new LiveFiles(path.join(dataDir, 'live'), (file, err) => log.warn('live file not followed', { file, error: (err as Error).message }));
  const lock = new RunnerLock(path.join(dataDir, 'gateway_runner.lock'));
  let active = false;
  let warning: string | null = null;
  let sweep: NodeJS.Timeout | undefined;

  const nudge = (message: unknown) => live.write(WAKE_FILE, message);

  return {
    get active() {
      return active;
    },
    get warning() {
      return warning;
    },
    kick: (runId) => (active ? runner.schedule(runId) : nudge({ kick: runId })),
    kickCommands: () => (active ? runner.kickCommands() : nudge({ commands: true })),
    start() {
      if (place === 'elsewhere') {
        warning = 'No runner runs in this server process (started with --no-runner): the run starts when a `keel runner` on the same data directory picks it up.';
        // Follow a separate runner's traffic so this server's streams stay live.
        live.follow((f) => f.endsWith('.jsonl') && f !== WAKE_FILE, (_file, message) => hub.receive(message as TapMessage), (file) => {
          const root = file.slice(0, -'.jsonl'.length);
          hub.receive({ t: 'terminal', root, run_id: root });
        }, true);
        return;
      }
      const got = lock.acquire();
      if (got !== true) {
        const lockFile = path.join(dataDir, 'gateway_runner.lock');
        // `keel runner` exists only to run: idle beside another runner it would only mislead.
        if (place === 'dedicated') throw new StartRefusedError(`Another runner (pid ${got}) holds ${lockFile}: the runs of this data directory are executed there; stop that runner first, or point this one at another --data-dir.`);
        warning = `Another runner (pid ${got}) holds ${lockFile}; runs are executed there.`;
        log.warn('runner not started: another runner holds the lock', { pid: got });
        return;
      }
      active = true;
      if (place === 'dedicated') {
        live.clear();
        hub.setTap((message) => {
          const root = message.t === 'append' || message.t === 'terminal' ? message.root : message.event.root_run_id;
          live.write(`${root}.jsonl`, message);
          if (message.t === 'terminal' && message.run_id === message.root) live.remove(`${root}.jsonl`);
        });
        live.follow((f) => f === WAKE_FILE, (_file, message) => {
          const m = message as { kick?: string; commands?: boolean };
          if (m.kick) runner.schedule(m.kick);
          if (m.commands) runner.kickCommands();
        });
        // A missed file event must not strand a run: a slow sweep re-checks commands and runnable runs.
        sweep = setInterval(() => runner.sweep(), 1000);
        sweep.unref();
      }
      runner.start();
    },
    async stop() {
      if (sweep) clearInterval(sweep);
      live.stop();
      hub.setTap(null);
      await runner.stop();
      lock.release();
    },
  };
}
