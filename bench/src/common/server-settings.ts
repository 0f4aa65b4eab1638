/** Settings every same-run server comparison reads: which servers to measure, and CPU profiles of their children. */
import path from 'node:path';

/** The servers named in `variable` (comma-separated), or every one of `ids` when it is unset or empty. */
export function serversFromEnv<Id extends string>(variable: string, ids: readonly Id[], env: NodeJS.ProcessEnv = process.env): Id[] {
  const raw = env[variable];
  if (!raw) return [...ids];
  const servers = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = servers.filter((s) => !(ids as readonly string[]).includes(s));
  if (unknown.length) throw new Error(`${variable}: unknown server ${unknown.join(', ')} (use ${ids.join(', ')}).`);
  return servers as Id[];
}

/** Where server children write `--cpu-prof` profiles (`BENCH_CPU_PROF`), or null for no profiling. */
export function cpuProfDirFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  return env.BENCH_CPU_PROF || null;
}

/** The node flags that make a server child write its CPU profile into `dir` (none without a dir). */
export function cpuProfArgs(dir: string | null): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}
