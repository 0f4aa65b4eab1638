/**
 * Counting an engine's syncs: `strace -f -c` attached to its processes (every thread, and every
 * descendant living at the time, e.g. PostgreSQL's backends and writers) for one phase of runs,
 * counting fsync, fdatasync, sync_file_range and msync. strace slows every traced process, so
 * nothing else is measured meanwhile.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withDescendants } from './procs.js';

const SYNC_CALLS = ['fsync', 'fdatasync', 'sync_file_range', 'msync'];
const ATTACH_TIMEOUT_MS = 15_000;

export interface SyncCount {
  /** Calls per syscall during the phase. */
  calls: Record<string, number>;
  total: number;
}

/** Why syncs cannot be counted here (no strace), with how to install it; null when they can. */
export function straceMissing(): string | null {
  const probe = spawnSync('strace', ['-V'], { stdio: 'ignore' });
  return probe.error ? 'strace is not installed: syncs per run are not counted (`apt-get install strace` to count them).' : null;
}

/** Runs `phase` with strace attached to `roots` and their descendants; answers the sync calls they made meanwhile. */
export async function countSyncs(roots: number[], phase: () => Promise<void>): Promise<SyncCount> {
  const pids = withDescendants(roots);
  const threads = pids.reduce((sum, pid) => sum + threadCount(pid), 0);
  const dir = mkdtempSync(path.join(tmpdir(), 'keel-bench-strace-'));
  const out = path.join(dir, 'summary.txt');
  try {
    const strace = spawn('strace', ['-f', '-c', '-e', `trace=${SYNC_CALLS.join(',')}`, '-o', out, ...pids.flatMap((p) => ['-p', String(p)])], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise<number | null>((resolve) => strace.once('exit', (code) => resolve(code)));
    let stderr = '';
    strace.stderr.setEncoding('utf8');
    // strace says "Process N attached" once per thread: wait for every thread there was (or a deadline).
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, ATTACH_TIMEOUT_MS);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      strace.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        if ((stderr.match(/attached/g)?.length ?? 0) >= threads) done();
      });
      strace.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`strace exited (code ${code}) before the phase: ${stderr.trim().split('\n').slice(-3).join(' / ')}`));
      });
    });
    try {
      await phase();
    } finally {
      strace.kill('SIGINT');
      await exited;
    }
    return parseSummary(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** strace -c's table: `% time  seconds  usecs/call  calls  [errors]  syscall`, then a `total` row. */
export function parseSummary(text: string): SyncCount {
  const calls: Record<string, number> = Object.fromEntries(SYNC_CALLS.map((c) => [c, 0]));
  for (const line of text.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m && m[2] !== 'total') calls[m[2]!] = Number(m[1]);
  }
  return { calls, total: Object.values(calls).reduce((a, b) => a + b, 0) };
}

function threadCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

/** The calls made, in words (`fdatasync 12, fsync 3`). */
export function describeCalls(count: SyncCount): string {
  return Object.entries(count.calls).filter(([, n]) => n > 0).map(([c, n]) => `${c} ${n}`).join(', ') || 'none';
}
