/**
 * `GET /runs` (seed §2.8, §4.3; reference gateway-surfaces §4.3): the caller's runs, newest first,
 * only ever of the caller's own plane. `root_only=true` lists *turns* (parent-less runs except
 * automation controllers and legacy schedule roots, plus automation occurrences, a retried one
 * once), conversations unless `kind` says otherwise, archived sessions left out unless
 * `archived_only=true` (or the listing names its `session_id`). Every listing carries
 * `archived_sessions`, the count of the caller's archived sessions of the listed purpose, and
 * `truncated`: whether it stopped at its scan budget. Which runs it reads: listing-candidates.ts.
 */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, route, type Principal } from '@keel/plugin-sdk';
import type { LedgerStore } from '@keel/plugin-ledger';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { workspaceOf } from '../extensions/runs-directory.js';
import { runView, type RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { SessionArchive } from '../sessions/session-archive.js';
import type { SessionKinds, SessionPurpose } from '../sessions/session-kinds.js';
import { listingCandidates, ListScan } from './listing-candidates.js';
import { runMetrics } from './run-metrics.js';

export const SESSION_KINDS = ['chat', 'automation', 'occurrence', 'discussion'] as const;
type SessionKind = (typeof SESSION_KINDS)[number];

const listQuery = defineSchema({
  type: 'object',
  properties: {
    session_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
    parent_run_id: { type: 'string', maxLength: KEY_ID_MAX_LENGTH },
    root_only: { type: 'boolean' },
    archived_only: { type: 'boolean' },
    kind: { enum: ['conversation', 'docs', 'all'] },
    session_kind: { type: 'string', maxLength: 200, description: 'Comma list of chat, automation, occurrence, discussion' },
    include_metrics: { type: 'boolean' },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
  },
});

const nullableText = { type: ['string', 'null'] } as const;
const listResponse = defineSchema({
  type: 'object',
  required: ['items', 'archived_sessions', 'truncated'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['run_id', 'status', 'session_id', 'parent_run_id', 'kind', 'session_kind', 'automation_id', 'role', 'occurrence_index', 'legacy'],
        properties: {
          run_id: { type: 'string' },
          status: { type: 'string' },
          session_id: nullableText,
          parent_run_id: nullableText,
          kind: { enum: ['conversation', 'docs'] },
          session_kind: { enum: [...SESSION_KINDS, null] },
          automation_id: nullableText,
          role: nullableText,
          occurrence_index: { type: ['integer', 'null'] },
          legacy: { type: 'boolean' },
          archived: { const: true },
          archived_at: { type: 'string' },
          workspace_root: nullableText,
        },
      },
    },
    archived_sessions: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean', description: 'true when the listing stopped at `limits.maxListScan` runs looked at before its page was full (older matching runs may exist)' },
  },
});

/** How the runtime attributes a run (absent fields: a chat root, or nothing for a child). */
export interface Attribution {
  session_kind: SessionKind | null;
  automation_id: string | null;
  role: string | null;
  occurrence_index: number | null;
  legacy: boolean;
}

export function attributionOf(run: RunState): Attribution {
  // A `POST /runs/schedule` parent is a legacy automation (reference gateway-surfaces §8.3).
  if (run.builtin === 'scheduler' && run.parent_run_id === null) {
    return { session_kind: 'automation', automation_id: run.run_id, role: 'legacy_schedule', occurrence_index: null, legacy: true };
  }
  return {
    session_kind: run.session_kind ?? (run.parent_run_id === null ? 'chat' : null),
    automation_id: run.automation_id ?? null,
    role: run.role ?? null,
    occurrence_index: run.occurrence_index ?? null,
    legacy: false,
  };
}

/** A turn: an automation occurrence, or a parent-less run that is not an automation's controller. */
export function isTurn(run: RunState, a: Attribution = attributionOf(run)): boolean {
  if (a.role === 'occurrence') return true;
  return run.parent_run_id === null && a.session_kind !== 'automation';
}

/** The `session_kind` filter as a set; an unknown value is refused naming the accepted ones. */
function sessionKindFilter(raw: string | undefined): Set<SessionKind> | null {
  if (raw === undefined) return null;
  const asked = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = asked.filter((s) => !(SESSION_KINDS as readonly string[]).includes(s));
  if (unknown.length || !asked.length) {
    const named = unknown.length ? `session_kind '${unknown.join(',').slice(0, 100)}' is unknown` : 'session_kind is empty';
    throw badRequest(`${named}; use a comma list of ${SESSION_KINDS.join(', ')}.`, { code: 'invalid_request', field: 'query.session_kind' });
  }
  return new Set(asked as SessionKind[]);
}

export interface RunListingDeps {
  runs: RunStore;
  ledger: LedgerStore;
  archive: SessionArchive;
  kinds: SessionKinds;
  workspaces: WorkspaceService;
  isAdmin(principal: Principal): boolean;
  /** `limits.maxListScan`: the most runs one listing looks at (see listing-candidates.ts). */
  maxListScan: number;
}

export function runListingRoutes(d: RunListingDeps) {
  /** The root's workspace folder as the caller may see it (as `GET /runs/{id}/workspace` shows it). */
  const workspaceRootOf = async (principal: Principal, run: RunState): Promise<string | null> => {
    const ws = workspaceOf(d.workspaces, run.root_run_id === run.run_id ? run : d.runs.get(run.root_run_id));
    if (!ws) return null;
    return ws.kind === 'launch_folder' || !d.isAdmin(principal) ? ws.path : d.workspaces.rootOf(ws);
  };

  return [
    route({
      method: 'GET',
      path: '/runs',
      tags: ['runs'],
      summary: "The caller's runs, newest first; root_only=true lists turns (conversations unless `kind` says otherwise, archived sessions left out unless archived_only=true)",
      query: listQuery,
      responses: { 200: { schema: listResponse } },
      handler: async ({ query, principal }) => {
        const account = principal.account;
        const sessionKinds = sessionKindFilter(query.session_kind);
        // Turn listings default to conversations; other listings show every purpose.
        const kind: SessionPurpose | 'all' = query.kind ?? (query.root_only ? 'conversation' : 'all');
        const archived = d.archive.archivedOf(account);
        const purpose = (sessionId: string | null) => d.kinds.purposeOf(account, sessionId);
        const seenOccurrences = new Set<string>();
        const picked: Array<{ run: RunState; a: Attribution; turn: boolean }> = [];
        const scan = new ListScan(d.maxListScan);
        const candidates = listingCandidates(d.runs, {
          account,
          sessionId: query.session_id,
          parentRunId: query.parent_run_id,
          rootOnly: query.root_only === true,
          archivedOnly: query.archived_only === true,
          kind,
          archived: new Set(archived.keys()),
          docsSessions: () => d.kinds.docsSessionsOf(account),
          purposeOf: purpose,
        }, scan);
        for (const run of candidates) {
          // The parent index is not kept per account: another account's child is never listed.
          if (run.account !== account) continue;
          if (query.session_id && run.session_id !== query.session_id) continue;
          if (query.parent_run_id && run.parent_run_id !== query.parent_run_id) continue;
          const a = attributionOf(run);
          const turn = isTurn(run, a);
          if (query.root_only) {
            if (!turn) continue;
            // A retried occurrence is one turn: its newest attempt (rows come newest first).
            if (a.role === 'occurrence' && a.automation_id !== null && a.occurrence_index !== null) {
              const key = `${a.automation_id}\u0000${a.occurrence_index}`;
              if (seenOccurrences.has(key)) continue;
              seenOccurrences.add(key);
            }
          }
          if (sessionKinds && (a.session_kind === null || !sessionKinds.has(a.session_kind))) continue;
          if (kind !== 'all' && purpose(run.session_id) !== kind) continue;
          const isArchived = run.session_id !== null && archived.has(run.session_id);
          if (query.archived_only && !isArchived) continue;
          if (!query.archived_only && query.root_only && !query.session_id && isArchived) continue;
          picked.push({ run, a, turn });
          if (picked.length >= query.limit) break;
        }
        const items = await Promise.all(
          picked.map(async ({ run, a, turn }) => {
            const mark = run.session_id !== null ? archived.get(run.session_id) : undefined;
            return {
              ...runView(run),
              kind: purpose(run.session_id),
              ...a,
              ...(mark ? { archived: true as const, archived_at: mark.archived_at } : {}),
              ...(turn ? { workspace_root: await workspaceRootOf(principal, run) } : {}),
              ...(query.include_metrics ? runMetrics(run.run_id, d.runs, d.ledger) : {}),
            };
          }),
        );
        let count = 0;
        for (const sessionId of archived.keys()) if (kind === 'all' || purpose(sessionId) === kind) count++;
        return { items, archived_sessions: count, truncated: scan.truncated };
      },
    }),
  ];
}
