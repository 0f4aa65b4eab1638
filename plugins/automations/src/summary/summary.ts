/**
 * `AutomationSummary` (reference gateway-surfaces §3.6), composed from the record and from what
 * the engine and the trigger sources know: the latest occurrence, the attention block and the
 * schedule wording are read through small reader interfaces injected here (the engine's occurrence
 * log, the triggers' wording), so the summary never reaches into their storage.
 */
import type { AutomationRecord, AutomationStatus, OccurrenceRecord } from '../model.js';

/** The engine's occurrence log as the summary reads it. */
export interface OccurrenceReader {
  /** The occurrence with the highest index (its latest attempt), or null when none was allocated. */
  latest(automationId: string): OccurrenceRecord | null;
}

export interface AttentionWait {
  run_id: string;
  wait_key: string | null;
  kind: string;
  reason: string;
  index: number;
  prompt?: string | null;
  choices?: unknown[] | null;
}

/** The attention block of a summary (reference §3.8), for one viewer. */
export interface AttentionBlock {
  pending_waits: number;
  unread: boolean;
  unseen_count: number;
  cursor: string;
  items: unknown[];
  waits: AttentionWait[];
}

export interface AttentionReader {
  /** The block for `account` (its seen cursor) of this automation. */
  block(record: AutomationRecord, account: string): AttentionBlock;
}

/** The schedule wording of a summary (reference §3.5), from the trigger sources. */
export interface ScheduleWording {
  time_zone: string;
  schedule_rule_text: string;
  schedule_text: string;
  next_run_at?: string;
  next_run_local?: string;
}

export interface ScheduleWordingReader {
  /** The wording of the record's binding; `nextFireAt` is the record's next tick (null: none). */
  wording(record: AutomationRecord, nextFireAt: string | null): ScheduleWording;
}

export interface SummaryReaders {
  occurrences: OccurrenceReader;
  attention: AttentionReader;
  schedule: ScheduleWordingReader;
}

const ALL_CAPABILITIES = ['revise', 'pause', 'resume', 'run_now', 'stop_current', 'archive', 'discuss'];
const EXCERPT_CHARS = 280;

/** What a client may do now (`capabilities`). */
export function capabilitiesOf(status: AutomationStatus, archivePending: boolean): string[] {
  if (status === 'archived' || archivePending) return ['unarchive', 'discuss'];
  if (status === 'completed' || status === 'failed') return ['discuss'];
  return [...ALL_CAPABILITIES];
}

/** The attention block before any item exists (also what a reader without an engine answers). */
export function emptyAttention(record: AutomationRecord): AttentionBlock {
  return { pending_waits: 0, unread: false, unseen_count: 0, cursor: `att1:${record.attention_seq}`, items: [], waits: [] };
}

export function buildSummary(record: AutomationRecord, viewer: string, readers: SummaryReaders): Record<string, unknown> {
  const def = record.definition;
  // No next tick while it cannot fire on schedule (reference §3.6): paused, archived, completed, failed.
  const nextFireAt = record.status === 'active' && !record.archive_pending ? record.next_fire_at : null;
  const wording = readers.schedule.wording(record, nextFireAt);
  const latest = readers.occurrences.latest(record.automation_id);
  const attention = readers.attention.block(record, viewer);
  const summary: Record<string, unknown> = {
    automation_id: record.automation_id,
    title: def.title,
    status: record.status,
    trigger: def.trigger,
    context_mode: def.context.mode,
    growing_max_tokens: def.context.mode === 'growing' ? (def.context.growing?.max_tokens ?? null) : null,
    // Occurrences work in their sessions' folders (independent: one per occurrence), not one automation folder.
    workspace_root: null,
    current_occurrence: record.current
      ? { index: record.current.index, run_id: record.current.run_id, attempt: record.current.attempt, status: record.current.status }
      : null,
    occurrence_count: finishedCount(record, latest),
    time_zone: wording.time_zone,
    schedule_rule_text: wording.schedule_rule_text,
    schedule_text: wording.schedule_text,
    attention,
    last_occurrence: latest ? lastOccurrence(latest, attention.waits) : null,
    last_notification: null,
    paused_reason: record.status === 'paused' ? record.paused_reason : null,
    legacy: false,
    revision: def.revision,
    updated_at: record.updated_at,
    capabilities: capabilitiesOf(record.status, record.archive_pending),
    session_kind: 'automation',
    archive_pending: record.archive_pending,
  };
  if (nextFireAt) summary.next_fire_at = nextFireAt;
  if (wording.next_run_at) summary.next_run_at = wording.next_run_at;
  if (wording.next_run_local) summary.next_run_local = wording.next_run_local;
  return summary;
}

/** Occurrences allocated, less the one in progress (the reference counts the ones that were admitted before the current). */
function finishedCount(record: AutomationRecord, latest: OccurrenceRecord | null): number {
  const allocated = Math.max(record.occurrence_count, latest?.index ?? 0);
  return record.current ? Math.max(0, allocated - 1) : allocated;
}

/** `status` reads `waiting` while the occurrence (or a run below it) waits for a person (reference §3.6). */
function lastOccurrence(occurrence: OccurrenceRecord, waits: AttentionWait[]): Record<string, unknown> {
  const waiting = occurrence.status === 'running' && waits.some((wait) => wait.index === occurrence.index);
  return {
    run_id: occurrence.run_id,
    index: occurrence.index,
    status: waiting ? 'waiting' : occurrence.status,
    attempts: occurrence.attempts,
    fired_at: occurrence.fired_at,
    finished_at: occurrence.finished_at,
    excerpt: [...(occurrence.answer ?? '')].slice(0, EXCERPT_CHARS).join(''),
    notify: occurrence.notify ?? null,
  };
}
