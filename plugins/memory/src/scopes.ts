/**
 * Memory scopes and their owners (reference runtime-nodes §8.1): `run` is the current run,
 * `session` the session's memory run `session_memory_<sid>` (hashed when the id has other
 * characters; no session: the run tree's root), `global` the account's `global_memory`, `all` the
 * three in that order. Owners are names inside one account's plane: `global` is global to the
 * account, never shared between accounts.
 */
import { createHash } from 'node:crypto';

export type WriteScope = 'run' | 'session' | 'global';
export type ReadScope = WriteScope | 'all';

export const GLOBAL_MEMORY_OWNER = 'global_memory';
const PLAIN_SESSION = /^[A-Za-z0-9_-]+$/;

/** What a scope is resolved against: the run asking. */
export interface ScopeRun {
  runId: string;
  rootRunId: string;
  sessionId: string | null;
}

export function sessionMemoryOwner(sessionId: string): string {
  if (PLAIN_SESSION.test(sessionId)) return `session_memory_${sessionId}`;
  return `session_memory_sha_${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
}

/** `scope` as written in a payload (blank: `run`), lowercased; `null` when it is none of `allowed`. */
export function parseScope<S extends string>(value: unknown, allowed: readonly S[]): S | null {
  const text = value === undefined || value === null ? '' : String(value).trim().toLowerCase();
  const scope = (text || 'run') as S;
  return allowed.includes(scope) ? scope : null;
}

export const WRITE_SCOPES: readonly WriteScope[] = ['run', 'session', 'global'];
export const READ_SCOPES: readonly ReadScope[] = ['run', 'session', 'global', 'all'];

export function ownerOf(scope: WriteScope, run: ScopeRun): string {
  if (scope === 'run') return run.runId;
  if (scope === 'session') return run.sessionId ? sessionMemoryOwner(run.sessionId) : run.rootRunId;
  return GLOBAL_MEMORY_OWNER;
}

/** The owners a read scope covers, deduplicated, with the scope each stands for. */
export function ownersOf(scope: ReadScope, run: ScopeRun): Array<{ scope: WriteScope; owner: string }> {
  const scopes: WriteScope[] = scope === 'all' ? ['run', 'session', 'global'] : [scope];
  const seen = new Set<string>();
  return scopes.flatMap((s) => {
    const owner = ownerOf(s, run);
    if (seen.has(owner)) return [];
    seen.add(owner);
    return [{ scope: s, owner }];
  });
}

export function unknownScope(value: unknown): Error {
  return new Error(`Unknown memory scope: ${String(value)}`);
}
