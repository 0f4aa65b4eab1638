/**
 * The changes an occurrence goes through, applied to a copy of the automation record inside the
 * store's transaction (synchronous): admission, skipped ticks, the end of an attempt (completed,
 * retry after a backoff, failed, cancelled). The occurrence row and attention items are written in
 * the same transaction, so the record and its rows agree after any crash.
 */
import type { AttentionRecord, AutomationRecord, CurrentOccurrence, OccurrenceRecord, PendingFire, RunOutcomeLike } from './engine-types.js';
import { firstAttemptName, occurrenceRunId } from './occurrence-ids.js';
import { fireSource, occurrenceInputs } from './occurrence-inputs.js';
import { answerOf, failureMessage, notifyOf } from './occurrence-outcome.js';
import type { OccurrenceLog } from './occurrence-log.js';
import type { TickRange } from './misfire.js';
import { retryDelayMs } from './retry-backoff.js';

export interface TransitionClock {
  nowMs: number;
  nowIso: string;
}

/** The name attempt 1 of an occurrence row was made from (`manual:<command_id>` or `<revision>:<index>`). */
export function firstNameOf(row: Pick<OccurrenceRecord, 'trigger_kind' | 'command_id' | 'revision' | 'index'>): string {
  return firstAttemptName({ kind: row.trigger_kind, ...(row.command_id ? { command_id: row.command_id } : {}) }, row.revision, row.index);
}

/** Admits a fire as the next occurrence (attempt 1, status `admitted`): allocates its index, freezes its inputs. */
export function admitFire(
  record: AutomationRecord,
  fire: PendingFire,
  log: OccurrenceLog,
  clock: TransitionClock,
  schedule: { tick: number | null; scheduled_at: string | null; coalesced: TickRange | null },
): CurrentOccurrence {
  const definition = record.definition;
  const index = record.occurrence_count + 1;
  const firstName = firstAttemptName(fire, definition.revision, index);
  const runId = occurrenceRunId(record.automation_id, firstName, 1);
  const inputs = occurrenceInputs({ definition, fire, index, firedAt: clock.nowIso, firstRunId: runId });
  const row: OccurrenceRecord = {
    automation_id: record.automation_id,
    index,
    run_id: runId,
    attempts: 1,
    revision: definition.revision,
    event_id: fire.event_id,
    trigger_kind: fire.kind,
    fired_at: clock.nowIso,
    scheduled_at: schedule.scheduled_at,
    finished_at: null,
    status: 'admitted',
    user_turn: inputs.userTurn,
    answer: '',
    failure: null,
    coalesced: schedule.coalesced,
    session_id: inputs.sessionId,
    notify: null,
    input_data: inputs.inputData,
    source: fireSource(definition, fire),
    tick: schedule.tick,
    command_id: fire.command_id ?? null,
  };
  log.putOccurrence(row);
  const current: CurrentOccurrence = { index, run_id: runId, attempt: 1, status: 'admitted', retry_at: null, fired_at: clock.nowIso, stop_command_id: null, cancel_sent: false };
  record.occurrence_count = index;
  record.current = current;
  return current;
}

/** Records a range of ticks that will never fire as one `skipped` occurrence row (every expected fire is accounted for). */
export function recordSkipped(record: AutomationRecord, range: TickRange, log: OccurrenceLog, clock: TransitionClock, lastTickAt: string | null): void {
  const definition = record.definition;
  const index = record.occurrence_count + 1;
  record.occurrence_count = index;
  const source = `${definition.trigger.source_id}@${definition.trigger.source_version}`;
  log.putOccurrence({
    automation_id: record.automation_id,
    index,
    run_id: '',
    attempts: 0,
    revision: definition.revision,
    event_id: `${source}:${definition.trigger.binding_id}:${range.first_tick}-${range.last_tick}`,
    trigger_kind: 'schedule',
    fired_at: clock.nowIso,
    scheduled_at: lastTickAt,
    finished_at: clock.nowIso,
    status: 'skipped',
    user_turn: '',
    answer: '',
    failure: null,
    coalesced: range,
    session_id: '',
    notify: null,
    input_data: {},
    source,
    tick: range.last_tick,
    command_id: null,
  });
}

/** Starts the next attempt of a current occurrence in backoff: a new deterministic run id, the same frozen inputs. */
export function nextAttempt(record: AutomationRecord, log: OccurrenceLog): CurrentOccurrence {
  const current = record.current!;
  const row = log.occurrence(record.automation_id, current.index)!;
  const attempt = current.attempt + 1;
  const runId = occurrenceRunId(record.automation_id, firstNameOf(row), attempt);
  log.putOccurrence({ ...row, run_id: runId, attempts: attempt, status: 'admitted' });
  record.current = { ...current, attempt, run_id: runId, status: 'admitted', retry_at: null, cancel_sent: false };
  return record.current;
}

/** Marks the current attempt as started (its run exists). */
export function markRunning(record: AutomationRecord, log: OccurrenceLog): void {
  const current = record.current!;
  const row = log.occurrence(record.automation_id, current.index);
  if (row && row.status === 'admitted') log.putOccurrence({ ...row, status: 'running' });
  record.current = { ...current, status: 'running' };
}

export type AttemptEnd = 'completed' | 'retry' | 'failed' | 'cancelled';

/**
 * Applies the end of the current attempt: `completed` (answer, notify → attention), `cancelled`
 * (a stop, or a cancel from elsewhere: no retry), `failed` → a retry after the backoff of
 * `policy.retry`, or after the last attempt the occurrence fails and asks for attention.
 */
export function endAttempt(record: AutomationRecord, run: RunOutcomeLike, log: OccurrenceLog, clock: TransitionClock): AttemptEnd {
  const current = record.current!;
  const row = log.occurrence(record.automation_id, current.index)!;
  const stopped = Boolean(current.stop_command_id);
  if (run.status === 'completed' && !stopped) {
    const answer = answerOf(run.output);
    const notify = notifyOf(run.output, record.definition.title, answer);
    log.putOccurrence({ ...row, status: 'completed', answer, finished_at: clock.nowIso, notify: notify ?? null });
    if (notify) addAttention(record, log, clock, { kind: 'notify', run_id: current.run_id, index: current.index, title: notify.title, body: notify.body });
    record.current = null;
    return 'completed';
  }
  if (run.status === 'completed' || run.status === 'cancelled' || stopped) {
    const answer = run.status === 'completed' ? answerOf(run.output) : '';
    log.putOccurrence({ ...row, status: run.status === 'completed' ? 'completed' : 'cancelled', answer, finished_at: clock.nowIso });
    record.current = null;
    return run.status === 'completed' ? 'completed' : 'cancelled';
  }
  const message = failureMessage(run);
  const delay = retryDelayMs(record.definition.policy.retry, current.attempt);
  if (delay !== null) {
    const retryAt = new Date(clock.nowMs + delay).toISOString();
    log.putOccurrence({ ...row, status: 'backoff', failure: null });
    record.current = { ...current, status: 'backoff', retry_at: retryAt };
    return 'retry';
  }
  log.putOccurrence({ ...row, status: 'failed', finished_at: clock.nowIso, failure: { reason_code: 'occurrence_failed', message, attempts: current.attempt } });
  addAttention(record, log, clock, {
    kind: 'failure',
    run_id: current.run_id,
    index: current.index,
    title: record.definition.title,
    body: `Occurrence ${current.index} failed after ${current.attempt} attempt${current.attempt === 1 ? '' : 's'}: ${message}`,
  });
  record.current = null;
  return 'failed';
}

/** Ends the current occurrence as `cancelled` without a run end (stopped in backoff, or before its run existed). */
export function cancelWithoutRun(record: AutomationRecord, log: OccurrenceLog, clock: TransitionClock): void {
  const current = record.current!;
  const row = log.occurrence(record.automation_id, current.index);
  if (row) log.putOccurrence({ ...row, status: 'cancelled', finished_at: clock.nowIso });
  record.current = null;
}

function addAttention(record: AutomationRecord, log: OccurrenceLog, clock: TransitionClock, item: Omit<AttentionRecord, 'automation_id' | 'seq' | 'at'>): void {
  record.attention_seq += 1;
  log.putAttention({ automation_id: record.automation_id, seq: record.attention_seq, at: clock.nowIso, ...item });
}
