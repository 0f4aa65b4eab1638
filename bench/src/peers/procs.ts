/**
 * Processes the peers run as: spawning a child that announces its port on stdout, finding a free
 * port, and reading the CPU time of a set of processes and their descendants (Linux `/proc`).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released for the engine to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Child {
  process: ChildProcess;
  /** The `{"ready": port}` the child printed, when it prints one. */
  port: number;
  stop(): Promise<void>;
}

/**
 * Spawns `command`; its output goes to `logFile`. With `readyLine`, waits for a stdout line
 * `{"ready": <port>}` (the peers' scripts print one once listening). A child that exits first is an
 * error naming its log.
 */
export async function spawnChild(command: string, args: string[], options: SpawnOptions & { logFile: string; readyLine: boolean }): Promise<Child> {
  const log = openSync(options.logFile, 'a');
  const child = spawn(command, args, { ...options, stdio: ['ignore', options.readyLine ? 'pipe' : log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let port = 0;
  if (options.readyLine) {
    port = await new Promise<number>((resolve, reject) => {
      let buffer = '';
      const timer = setTimeout(() => fail(new Error(`${command} ${args.join(' ')} did not say it was ready within ${READY_TIMEOUT_MS / 1000} s (log: ${options.logFile}).`)), READY_TIMEOUT_MS);
      const fail = (err: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(err);
      };
      child.once('exit', (code, signal) => fail(new Error(`${command} ${args.join(' ')} exited (code ${code}, signal ${signal}) before it was ready (log: ${options.logFile}).`)));
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (chunk: string) => {
        buffer += chunk;
        const match = /^\{"ready":(\d+)\}$/m.exec(buffer);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
    });
    // Keep draining its stdout (SDK log lines) so the child never blocks on a full pipe.
    child.stdout!.resume();
  }
  return {
    process: child,
    port,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The last `lines` lines of a log file (for an error message), or '' when it cannot be read. */
export function logTail(file: string, lines = 8): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Waits until `check` answers true, polling every `everyMs`; throws `what` after `timeoutMs`. */
export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `roots` and every living process descended from them. */
export function withDescendants(roots: number[]): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat) parentOf.set(Number(name), Number(stat[1]));
  }
  const all = new Set(roots);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (all.has(ppid) && !all.has(pid)) {
        all.add(pid);
        grew = true;
      }
    }
  }
  return [...all];
}

/** CPU time (user + system, all threads) of `roots` and their living descendants, in ms. */
export function cpuMsOf(roots: number[]): number {
  const tick = 1000 / CLOCK_TICKS;
  let ms = 0;
  for (const pid of withDescendants(roots)) {
    const stat = readStat(pid);
    if (stat) ms += (Number(stat[11]) + Number(stat[12])) * tick;
  }
  return ms;
}

/** Linux's USER_HZ: 100 on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/** The fields of /proc/<pid>/stat after the command name (state is [0], ppid [1], utime [11], stime [12]); null when gone. */
function readStat(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}
