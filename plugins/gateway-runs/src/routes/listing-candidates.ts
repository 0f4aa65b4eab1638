/**
 * Which runs a `GET /runs` listing looks at, newest first, picked from the run store's indexes by its
 * filters, so that a filter that matches little costs what it matches, never the account's history:
 * a parent's children from the parent index, a session's runs (and the archived or docs sessions')
 * from the index of runs by session, turns from the index of root runs and occurrences (whose session
 * id dismisses an archived or docs session's turn without reading it), and only a listing with none
 * of these filters walks the account's runs. Every candidate counts against the request's scan budget
 * (`limits.maxListScan`); once it is spent the listing stops and answers `truncated: true`.
 *
 * A candidate may be a superset of what the listing shows: the listing applies every rule to each run
 * it reads. Candidates come newest first (`created_at`, then `run_id`, as the account index orders them).
 */
import type { RunState } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';

/** The runs one request may look at (index entries dismissed unread included). */
export class ListScan {
  private used = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  /** Counts one candidate; false once the budget is spent (and the listing is then truncated). */
  take(): boolean {
    if (this.used >= this.max) {
      this.truncated = true;
      return false;
    }
    this.used++;
    return true;
  }
}

/** What the listing filters on, as the candidates need it. */
export interface CandidateFilters {
  account: string;
  sessionId?: string | undefined;
  parentRunId?: string | undefined;
  rootOnly: boolean;
  archivedOnly: boolean;
  /** The listed purpose, as defaulted. */
  kind: 'conversation' | 'docs' | 'all';
  /** The account's archived session ids. */
  archived: ReadonlySet<string>;
  docsSessions(): string[];
  purposeOf(sessionId: string | null): 'conversation' | 'docs';
}

/** The runs to look at, newest first, each already counted against `scan`; stops when the budget is spent. */
export function* listingCandidates(runs: RunStore, f: CandidateFilters, scan: ListScan): Generator<RunState> {
  if (f.parentRunId !== undefined) {
    yield* childrenNewestFirst(runs, f.parentRunId, scan);
    return;
  }
  const sessions = sessionsListed(f);
  if (sessions) {
    yield* read(runs, mergeNewestFirst(sessions.map((s) => runs.idsInSessionNewestFirst(f.account, s))), scan);
    return;
  }
  if (f.rootOnly) {
    // Not archived_only, no session named: archived sessions' turns are left out, and so are other purposes'.
    for (const turn of runs.turnIdsNewestFirst(f.account)) {
      if (!scan.take()) return;
      if (turn.session_id !== null && f.archived.has(turn.session_id)) continue;
      if (f.kind !== 'all' && f.purposeOf(turn.session_id) !== f.kind) continue;
      const run = runs.get(turn.run_id);
      if (run) yield run;
    }
    return;
  }
  for (const id of runs.idsByAccountNewestFirst(f.account)) {
    if (!scan.take()) return;
    const run = runs.get(id);
    if (run) yield run;
  }
}

/** The sessions whose runs are the only ones the listing can show, or null when it is not limited to sessions. */
function sessionsListed(f: CandidateFilters): string[] | null {
  if (f.sessionId !== undefined) return [f.sessionId];
  if (f.archivedOnly) return [...f.archived].filter((s) => f.kind === 'all' || f.purposeOf(s) === f.kind);
  if (f.kind === 'docs') return f.docsSessions();
  return null;
}

function* read(runs: RunStore, ids: Iterable<string>, scan: ListScan): Generator<RunState> {
  for (const id of ids) {
    if (!scan.take()) return;
    const run = runs.get(id);
    if (run) yield run;
  }
}

/**
 * Merges index walks that each come newest first into one, lazily: a page that fills early never
 * reads further. Picks the newest head each time (linear in the number of walks, which is the
 * number of sessions listed; the listing already reads each of their marks).
 */
function* mergeNewestFirst(walks: Array<Generator<[string, string]>>): Generator<string> {
  const heads = walks.map((w) => w.next());
  try {
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!;
        if (h.done) continue;
        if (best < 0 || newer(h.value, (heads[best] as IteratorYieldResult<[string, string]>).value)) best = i;
      }
      if (best < 0) return;
      yield (heads[best] as IteratorYieldResult<[string, string]>).value[1];
      heads[best] = walks[best]!.next();
    }
  } finally {
    // An unfinished index walk holds a read transaction until it is closed.
    for (const w of walks) w.return(undefined);
  }
}

function newer(a: [string, string], b: [string, string]): boolean {
  return a[0] !== b[0] ? a[0] > b[0] : a[1] > b[1];
}

/** A parent's children: the parent index holds no creation time, so they are read (within the budget) and sorted. */
function* childrenNewestFirst(runs: RunStore, parentRunId: string, scan: ListScan): Generator<RunState> {
  const children: RunState[] = [];
  for (const id of runs.childIds(parentRunId)) {
    if (!scan.take()) break;
    const run = runs.get(id);
    if (run) children.push(run);
  }
  children.sort((a, b) => (newer([a.created_at, a.run_id], [b.created_at, b.run_id]) ? -1 : 1));
  yield* children;
}
