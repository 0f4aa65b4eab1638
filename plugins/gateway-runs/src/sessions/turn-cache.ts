/**
 * A session's turns for history replay, newest first, each read from a small record kept per ended
 * run instead of the run itself. A run's state holds its variables, and a replaying run's variables
 * hold a whole window of history: reading a few hundred such runs at every start cost most of a
 * second in a long session (bench/src/history). An ended run never changes, so what replay needs of
 * it (whether it is a turn, its pair and their estimate) is worked out once, on its first replay, and
 * kept; a run still going is read each time.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import { isTerminal } from '../runtime/run-state.js';
import type { RunStore } from '../runtime/run-store.js';
import type { ReplayTurn } from './history-window.js';
import { countsAsTurn, replayableTurn } from './session-turns.js';

/** Bumped when what a record holds or how a turn is estimated changes: older records are worked out again. */
const RECORD_VERSION = 1;

interface TurnRecord {
  v: number;
  /** Whether the run counts as a turn of its session (replayed or not). */
  counts: boolean;
  /** The pair replayed, or null when the turn is not replayed. */
  turn: ReplayTurn | null;
}

export class TurnCache {
  private readonly records: Database<TurnRecord, string>;

  constructor(storage: PluginStorage, private readonly runs: Pick<RunStore, 'rootIdsOfSessionNewestFirst' | 'get'>) {
    this.records = storage.openDB<TurnRecord, string>('session-turns');
  }

  /** The account's turns of the session, newest first, read lazily: null for a turn that is not replayed. */
  *newestFirst(account: string, sessionId: string): Generator<ReplayTurn | null> {
    for (const runId of this.runs.rootIdsOfSessionNewestFirst(account, sessionId)) {
      const record = this.recordOf(runId);
      if (record?.counts) yield record.turn;
    }
  }

  private recordOf(runId: string): TurnRecord | null {
    const kept = this.records.get(runId);
    if (kept?.v === RECORD_VERSION) return kept;
    const run = this.runs.get(runId);
    if (!run) return null;
    const record: TurnRecord = { v: RECORD_VERSION, counts: countsAsTurn(run), turn: null };
    if (record.counts) record.turn = replayableTurn(run);
    // Written in the background (a lost write is worked out again next time); only an ended run's record stays true.
    if (isTerminal(run.status)) void this.records.put(runId, record);
    return record;
  }
}
