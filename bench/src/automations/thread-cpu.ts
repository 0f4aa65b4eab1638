/**
 * CPU per thread of this process (Linux `/proc/self/task/<tid>/stat`), to tell where the process's
 * CPU went: the main thread (the scheduler's JavaScript), LMDB's write thread, libuv's pool, workers.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface ThreadTimes {
  /** tid → {name, user ms, system ms}. */
  [tid: string]: { name: string; userMs: number; systemMs: number };
}

export function threadTimes(): ThreadTimes {
  const times: ThreadTimes = {};
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        times[tid] = { name, userMs: Number(fields[11]) * TICK_MS, systemMs: Number(fields[12]) * TICK_MS };
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    // not Linux
  }
  return times;
}

/** CPU ms per thread name between two readings (the main thread is the one whose tid is the pid), largest first. */
export function threadCpuSince(before: ThreadTimes, after: ThreadTimes = threadTimes()): Array<{ name: string; userMs: number; systemMs: number }> {
  const byName = new Map<string, { name: string; userMs: number; systemMs: number }>();
  for (const [tid, t] of Object.entries(after)) {
    const b = before[tid] ?? { userMs: 0, systemMs: 0 };
    const name = tid === String(process.pid) ? 'main' : t.name;
    const row = byName.get(name) ?? { name, userMs: 0, systemMs: 0 };
    row.userMs += t.userMs - b.userMs;
    row.systemMs += t.systemMs - b.systemMs;
    byName.set(name, row);
  }
  return [...byName.values()].filter((r) => r.userMs + r.systemMs > 0).sort((a, b) => b.userMs + b.systemMs - (a.userMs + a.systemMs));
}
