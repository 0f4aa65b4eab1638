/**
 * A session's uploads have no producing run; clients still name them under a run id, the session's
 * memory run `session_memory_<session id>` (reference §2.1), so `/runs/{run_id}/artifacts...` works
 * for them too. An id outside `[A-Za-z0-9._:-]` uses `session_memory_sha_<32 hex of its sha256>`.
 */
import { createHash } from 'node:crypto';

export const MEMORY_RUN_PREFIX = 'session_memory_';
const PLAIN_SESSION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function memoryRunIdOf(sessionId: string): string {
  if (PLAIN_SESSION_ID.test(sessionId) && !sessionId.startsWith('sha_')) return MEMORY_RUN_PREFIX + sessionId;
  return `${MEMORY_RUN_PREFIX}sha_${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}`;
}

export function isMemoryRunId(runId: string): boolean {
  return runId.startsWith(MEMORY_RUN_PREFIX);
}
