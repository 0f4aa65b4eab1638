/**
 * `artifact_not_in_session` (seed §7, reference §2.3): at run start every artifact reference in
 * `input_data` is checked against the run's session: objects carrying `$artifact` or `artifact_id`
 * anywhere (`context.attachments`, `context.media`, `attachments`, `media`, nested pins), with or
 * without `run_id`, and bare ids in lists or values under `attachments` / `media`. A session's upload
 * is visible to that session only (or to all its owner's sessions with `shared: user`); a run's
 * output passes to another session only when the reference names its producing run.
 */
import { badRequest, type HttpError } from '@keel/plugin-sdk';
import type { ArtifactIndex } from './artifact-index.js';
import { isSharedWithUser, type ArtifactRecord } from './artifact-record.js';
import { ownerRunId } from './artifact-reference.js';

export interface FoundReference {
  /** JSON-path-like location (`$.context.attachments[0]`). */
  path: string;
  artifact_id: string;
  /** The `run_id` the reference names, if any. */
  run_id: string | null;
}

const BARE_ID_KEYS = new Set(['attachments', 'media']);

/**
 * Every artifact reference in `input`, in document order. Iterative (no recursion on client data)
 * and never cut short: a bound would let a reference hide behind enough filler; the walk is linear
 * in a body the kernel already bounded (`server.bodyLimitBytes`).
 */
export function findReferences(input: unknown): FoundReference[] {
  const found: FoundReference[] = [];
  const stack: Array<{ value: unknown; path: string; bare: boolean }> = [{ value: input, path: '$', bare: false }];
  while (stack.length) {
    const { value, path, bare } = stack.pop()!;
    if (typeof value === 'string') {
      if (bare && value.trim() !== '') found.push({ path, artifact_id: value, run_id: null });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]`, bare });
      continue;
    }
    const object = value as Record<string, unknown>;
    // Both names are checked: a reader may take either, so an unknown `$artifact` cannot hide a foreign `artifact_id`.
    const ids = new Set([nonEmpty(object.$artifact), nonEmpty(object.artifact_id)].filter((id): id is string => id !== null));
    for (const id of ids) found.push({ path, artifact_id: id, run_id: nonEmpty(object.run_id) });
    const keys = Object.keys(object);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      stack.push({ value: object[key], path: `${path}.${key}`, bare: BARE_ID_KEYS.has(key) });
    }
  }
  return found;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** The first reference the run's session may not use, as the seed's 400; null when all pass. */
export function sessionViolation(index: ArtifactIndex, account: string, sessionId: string | null, input: unknown): HttpError | null {
  for (const ref of findReferences(input)) {
    const record = index.get(account, ref.artifact_id);
    // An unknown id is left to the normal "not found" of whatever reads it (and a bare string may be no id at all).
    if (!record) continue;
    const refused = refusal(record, ref, sessionId);
    if (refused) return refused;
  }
  return null;
}

function refusal(record: ArtifactRecord, ref: FoundReference, sessionId: string | null): HttpError | null {
  const owner = ownerRunId(record);
  const sameSession = sessionId !== null && record.session_id === sessionId;
  const visible = sameSession || isSharedWithUser(record);
  if (record.run_id === null) {
    // A session's upload or import: only its session (or every session of its owner when shared).
    if (sessionId === null || visible) return null;
    return notInSession(ref, record, owner, sessionId);
  }
  // A run's output: a reference naming another run than its producer is wrong anywhere.
  if (ref.run_id !== null && ref.run_id !== record.run_id) {
    return notInSession(ref, record, owner, sessionId, `Artifact ref at \`${ref.path}\` has mismatched run_id: \`${ref.artifact_id}\` belongs to \`${owner}\`, not \`${ref.run_id}\`.`);
  }
  if (visible) return null;
  // Handed to another session (or to a run without one): only by naming the producing run.
  if (ref.run_id === record.run_id) return null;
  return notInSession(ref, record, owner, sessionId);
}

function notInSession(ref: FoundReference, record: ArtifactRecord, owner: string | null, sessionId: string | null, message?: string): HttpError {
  const where = sessionId === null ? 'this run (it has no session; name the run that produced it in run_id)' : `session \`${sessionId}\``;
  return badRequest({
    reason_code: 'artifact_not_in_session',
    message: message ?? `Artifact ref at \`${ref.path}\` is not visible to ${where}: \`${record.artifact_id}\` belongs to \`${owner ?? 'no run'}\`. Attach the file in this conversation.`,
    path: ref.path,
    artifact_id: record.artifact_id,
    owner_run_id: owner,
    session_id: sessionId,
  });
}
