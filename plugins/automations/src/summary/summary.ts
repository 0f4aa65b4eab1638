/**
 * `AutomationSummary` (reference gateway-surfaces §3.6), composed from the record and from what
 * the engine and the trigger sources know: the latest occurrence, the attention block and the
 * schedule wording are read through small reader interfaces injected here (the engine's occurrence
 * log, the triggers' wording), so the summary never reaches into their storage.
 */
import { DEFAULT_GROWING_MAX_TOKENS } from '../definitions/policy.js';
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

/** The folder a run worked in (the runs plugin's record), or null. */
export interface RunFolderReader {
  workspaceRoot(runId: string): string | null;
}

export interface SummaryReaders {
  occurrences: OccurrenceReader;
  /** Optional: without it `workspace_root` is null. */
  runFolders?: RunFolderReader;
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
    // The window a growing context replays through (reference §3.6 shows it for an independent one too: the default).
    growing_max_tokens: def.context.growing?.max_tokens ?? DEFAULT_GROWING_MAX_TOKENS,
    // A growing automation's occurrences share the automation session's folder; an independent one's each work in their own (null).
    workspace_root: def.context.mode === 'growing' && latest?.run_id ? (readers.runFolders?.workspaceRoot(latest.run_id) ?? null) : null,
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
    // Code points of a bounded prefix only: spreading a whole answer cost an array of its length per summary.
    excerpt: [...(occurrence.answer ?? '').slice(0, 2 * EXCERPT_CHARS)].slice(0, EXCERPT_CHARS).join(''),
    notify: notifyExcerpt(occurrence.notify),
  };
}

/**
 * Characters of an attention item's body, a notification's body and a wait's prompt a summary
 * carries: a notify body is the whole answer, and a listing page holds up to 200 summaries of 20
 * items each (the whole text: GET …/attention, GET …/occurrences).
 */
export const SUMMARY_TEXT_CHARS = 1000;

/** At most SUMMARY_TEXT_CHARS characters, an ellipsis marking a cut. */
export function summaryExcerpt(text: string): string {
  return text.length <= SUMMARY_TEXT_CHARS ? text : `${text.slice(0, SUMMARY_TEXT_CHARS - 1)}…`;
}

/** A stored notification `{title, body}` with its body cut to an excerpt. */
function notifyExcerpt(notify: unknown): unknown {
  if (notify === null || notify === undefined) return null;
  if (typeof notify !== 'object' || Array.isArray(notify)) return notify;
  const { body } = notify as { body?: unknown };
  return typeof body === 'string' ? { ...notify, body: summaryExcerpt(body) } : notify;
}
