/**
 * Which artifacts a caller reaches under a run id (reference §2.3, last paragraph): the run is one
 * the caller may see (its owner or an admin; else 404), or a session's memory run of the caller's own
 * account; an artifact is reachable there when the run produced it, when it belongs to the run's
 * session, or when its owner shared it with all their sessions (`shared: user`). Everything is read
 * in the run owner's plane, so another account's ids never resolve.
 */
import { notFound, type Principal } from '@keel/plugin-sdk';
import type { RunFacts, RunsDirectory } from '@keel/plugin-gateway-runs';
import type { ArtifactIndex } from './artifact-index.js';
import { isSharedWithUser, type ArtifactRecord } from './artifact-record.js';
import { isMemoryRunId, MEMORY_RUN_PREFIX } from './session-memory.js';

export interface RunScope {
  account: string;
  run_id: string;
  session_id: string | null;
  /** The run's facts; null for a session's memory run (it is no run of gateway-runs). */
  run: RunFacts | null;
}

export class ArtifactScopes {
  constructor(private readonly index: ArtifactIndex, private readonly runs: RunsDirectory) {}

  /** The scope of `runId` for this caller; 404 when the caller may not see such a run. */
  async ofRun(principal: Principal, runId: string): Promise<RunScope> {
    if (isMemoryRunId(runId)) {
      const sessionId = this.index.sessionOfMemoryRun(principal.account, runId) ?? plainSessionOf(runId);
      if (sessionId !== null && (this.index.hasSession(principal.account, sessionId) || (await this.runs.sessionExists(principal.account, sessionId)))) {
        return { account: principal.account, run_id: runId, session_id: sessionId, run: null };
      }
    } else {
      const run = await this.runs.visibleRun(principal, runId);
      if (run) return { account: run.account, run_id: run.run_id, session_id: run.session_id, run };
    }
    throw notFound(`Run '${runId}' not found.`, { code: 'run_not_found' });
  }

  /** Whether the session is one of the account's (it has a run or an artifact in it). */
  async sessionExists(account: string, sessionId: string): Promise<boolean> {
    return this.index.hasSession(account, sessionId) || (await this.runs.sessionExists(account, sessionId));
  }

  /** The artifact if it is reachable in the scope; 404 otherwise (the same answer as a missing one). */
  artifactIn(scope: RunScope, artifactId: string): ArtifactRecord {
    const record = this.index.get(scope.account, artifactId);
    if (record && reachable(scope, record)) return record;
    throw notFound('artifact not found', { code: 'artifact_not_found' });
  }
}

export function reachable(scope: RunScope, record: ArtifactRecord): boolean {
  if (record.account !== scope.account) return false;
  if (scope.run && record.run_id === scope.run_id) return true;
  if (scope.session_id !== null && record.session_id === scope.session_id) return true;
  return isSharedWithUser(record);
}

/** `session_memory_<id>` read back, when it is not the hashed form. */
function plainSessionOf(runId: string): string | null {
  const rest = runId.slice(MEMORY_RUN_PREFIX.length);
  return rest === '' || rest.startsWith('sha_') ? null : rest;
}
