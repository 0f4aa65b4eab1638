/**
 * `POST /sessions/{session_id}/archive` and `/unarchive` (seed §3, §4.9; reference
 * gateway-surfaces §4.1): the session's owner, or an admin naming the owner with `?account=`.
 * A session exists for an account when it has a root run there; any other id, another account's
 * session included, answers 404 `session_not_found` (nothing tells whether it exists elsewhere).
 * Archiving deletes nothing: runs, ledgers and artifacts stay, `GET /runs?session_id=` still reads it.
 */
import { defineSchema, forbidden, KEY_ID_MAX_LENGTH, notFound, route, unprocessable, type AuthService, type Logger, type Principal } from '@keel/plugin-sdk';
import type { RunStore } from '../runtime/run-store.js';
import type { ArchiveAnswer, SessionArchive } from '../sessions/session-archive.js';

const sessionParams = defineSchema({ type: 'object', required: ['session_id'], properties: { session_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH } } });
const ownerQuery = defineSchema({
  type: 'object',
  properties: { account: { type: 'string', minLength: 1, maxLength: 300, description: "The session's owner (admin only): an account name, tenant:name, or me" } },
});
const archiveAnswer = defineSchema({
  type: 'object',
  required: ['session_id', 'archived', 'archived_at', 'archived_by', 'changed'],
  properties: {
    session_id: { type: 'string' },
    archived: { type: 'boolean' },
    archived_at: { type: ['string', 'null'] },
    archived_by: { type: ['string', 'null'] },
    changed: { type: 'boolean' },
  },
});

/** The 404 body for a session the caller's plane does not hold (seed §7). */
export function sessionNotFound(sessionId: string) {
  return notFound({ reason_code: 'session_not_found', message: `Session ${sessionId} does not exist.` });
}

export interface SessionRoutesDeps {
  runs: Pick<RunStore, 'hasSession'>;
  archive: SessionArchive;
  auth: AuthService;
  log: Logger;
}

export function sessionRoutes(d: SessionRoutesDeps) {
  const shown = (p: Pick<Principal, 'tenant' | 'account'>) => `${p.tenant}:${p.account}`;

  /** The session's owner: the caller, or the account an admin names (a non-admin naming another is refused first). */
  const ownerOf = (caller: Principal, named: string | undefined): Principal => {
    if (named === undefined || named === 'me' || named === caller.account || named === shown(caller)) return caller;
    if (!d.auth.isAdmin(caller)) throw forbidden("Only an admin may act on another account's session; leave out ?account= for your own.");
    const colon = named.indexOf(':');
    const tenant = colon >= 0 ? named.slice(0, colon) : null;
    const owner = d.auth.accountOf(colon >= 0 ? named.slice(colon + 1) : named);
    if (!owner || (tenant !== null && owner.tenant !== tenant)) throw notFound({ reason_code: 'account_not_found', message: `No account '${named.slice(0, 200)}' on this gateway.` });
    return owner;
  };

  const act = (action: 'archive' | 'unarchive') =>
    route({
      method: 'POST',
      path: `/sessions/:session_id/${action}`,
      tags: ['sessions'],
      summary:
        action === 'archive'
          ? "Archive a session (owner, or an admin with ?account=): it leaves turn listings; nothing is deleted; a repeat answers changed: false"
          : 'Unarchive a session (owner, or an admin with ?account=); a session that was not archived answers changed: false',
      params: sessionParams,
      query: ownerQuery,
      responses: { 200: { schema: archiveAnswer } },
      handler: async ({ params, query, principal }): Promise<ArchiveAnswer> => {
        const sessionId = params.session_id;
        if (!sessionId.trim()) throw unprocessable({ reason_code: 'invalid_request', message: `The session id is empty; name the session to ${action}.`, field: 'params.session_id' });
        const owner = ownerOf(principal, query.account);
        if (!d.runs.hasSession(owner.account, sessionId)) throw sessionNotFound(sessionId);
        const by = shown(principal);
        const answer = action === 'archive' ? await d.archive.archive(owner.account, sessionId, by) : await d.archive.unarchive(owner.account, sessionId, by);
        d.log.info(`session.${action}d`, { session_id: sessionId, account: shown(owner), actor: by, changed: answer.changed });
        return answer;
      },
    });

  return [act('archive'), act('unarchive')];
}
