/**
 * Reading occurrences and attention (reference §3.6, §3.8): the rows of `GET …/occurrences` and
 * `GET …/attention`, the seen cursor, and the blocks of the automation summary
 * (`current_occurrence`, `last_occurrence`, `attention`) for the definitions' routes.
 */
import type { RunLauncher, RunOutcome } from '@keel/plugin-gateway-runs';
import { invalidRequest } from '../errors.js';
import type { AttentionRecord, AutomationRecord, OccurrenceRecord } from '../model.js';
import type { AutomationStore } from '../store/automation-store.js';
import type { OccurrenceArtifact, OccurrenceArtifactsReader } from './occurrence-artifacts.js';
import type { OccurrenceLog } from './occurrence-log.js';
import { triggerSummary } from './trigger-summary.js';

const OCCURRENCE_CURSOR = /^occ1:([1-9][0-9]{0,15})$/;
const ATTENTION_CURSOR = /^att1:(0|[1-9][0-9]{0,15})$/;
/** Items and waits the summary's attention block carries at most. */
const SUMMARY_ITEMS = 20;

export interface TypedWait {
  run_id: string;
  wait_key: string | null;
  kind: string;
  reason: string;
  prompt?: string;
  choices?: unknown[];
}

export interface OccurrenceRow {
  run_id: string | null;
  index: number;
  attempts: number;
  fired_at: string;
  finished_at: string | null;
  status: string;
  trigger: { source_id: string; summary: string };
  user_turn: string;
  answer: string;
  notify: unknown;
  failure?: { reason_code: string; message: string; attempts: number };
  artifacts: OccurrenceArtifact[];
  waits: TypedWait[];
  ledger_url?: string;
  workspace_url?: string;
  coalesced: OccurrenceRecord['coalesced'];
  scheduled_at: string | null;
}

export interface AttentionItem {
  kind: AttentionRecord['kind'];
  automation_id: string;
  run_id: string;
  index: number;
  at: string;
  title: string;
  body?: string;
  cursor: string;
}

export interface AttentionBlock {
  pending_waits: number;
  unread: boolean;
  unseen_count: number;
  cursor: string;
  items: AttentionItem[];
  waits: Array<TypedWait & { index: number }>;
}

export class OccurrenceReaders {
  constructor(
    private readonly store: AutomationStore,
    private readonly log: OccurrenceLog,
    private readonly launcher: RunLauncher,
    /** The owner's time zone (schedule wording). */
    private readonly ownerZone: (account: string) => string,
    private readonly nowMs: () => number,
    /** `limits.maxPageBytes`: a page ends early (with a cursor) once its rows reach it. */
    private readonly maxPageBytes: number = DEFAULT_MAX_PAGE_BYTES,
    /** The artifacts an occurrence's run recorded (the artifacts plugin's, when loaded). */
    private readonly artifactsOf: OccurrenceArtifactsReader = () => [],
  ) {}

  /** `GET …/occurrences`: newest first by index; `cursor` is the previous page's `next_cursor`. */
  occurrencePage(record: AutomationRecord, cursor: string | undefined, limit: number): { items: OccurrenceRow[]; next_cursor: string | null } {
    let before: number | null = null;
    if (cursor !== undefined) {
      const match = OCCURRENCE_CURSOR.exec(cursor);
      if (!match) throw invalidRequest('cursor', 'cursor is not one this listing made (occ1:<index>); leave it out to start from the newest occurrence.');
      before = Number(match[1]);
    }
    const items: OccurrenceRow[] = [];
    let more = false;
    let bytes = 0;
    for (const row of this.log.newestFirst(record.automation_id, before)) {
      const size = rowBytes(row);
      if (items.length === limit || (items.length > 0 && bytes + size > this.maxPageBytes)) {
        more = true;
        break;
      }
      bytes += size;
      items.push(this.row(record, row));
    }
    return { items, next_cursor: more ? `occ1:${items[items.length - 1]!.index}` : null };
  }

  /** One occurrence as its row, or null when it does not exist. */
  occurrence(record: AutomationRecord, index: number): OccurrenceRow | null {
    const row = this.log.occurrence(record.automation_id, index);
    return row ? this.row(record, row) : null;
  }

  /** The summary's reader (core's `OccurrenceReader`): the newest occurrence that ran (skipped rows left out), or null. */
  latest(automationId: string): OccurrenceRecord | null {
    return this.log.lastRun(automationId);
  }

  /** The summary's reader (core's `AttentionReader`): the attention block of `account`. */
  block(record: AutomationRecord, account: string): AttentionBlock {
    return this.attention(account, record);
  }

  /** The summary's `attention` block for `account`. */
  attention(account: string, record: AutomationRecord): AttentionBlock {
    const latest = record.attention_seq;
    const seen = Math.min(this.log.seenSeq(account, record.automation_id), latest);
    const items: AttentionItem[] = [];
    for (const item of this.log.attentionAfter(record.automation_id, seen)) {
      if (items.length >= SUMMARY_ITEMS) break;
      items.push(attentionItem(item));
    }
    const waits: Array<TypedWait & { index: number }> = [];
    const current = record.current;
    if (current && current.status === 'running') {
      const wait = this.waitOf(current.run_id);
      if (wait) waits.push({ ...wait, index: current.index });
    }
    const unseen = Math.max(latest - seen, items.length, 0);
    return { pending_waits: waits.length, unread: unseen > 0, unseen_count: unseen, cursor: `att1:${latest}`, items, waits };
  }

  /** `GET …/attention`: unseen items oldest first, after `cursor` when given. */
  attentionPage(account: string, record: AutomationRecord, cursor: string | undefined, limit: number): { items: AttentionItem[]; next_cursor: string | null } {
    let after = this.log.seenSeq(account, record.automation_id);
    if (cursor !== undefined) {
      const match = ATTENTION_CURSOR.exec(cursor);
      if (!match) throw invalidRequest('cursor', 'cursor must be an attention cursor att1:<seq> (as items and next_cursor carry).');
      after = Math.max(after, Number(match[1]));
    }
    const items: AttentionItem[] = [];
    let more = false;
    let bytes = 0;
    for (const item of this.log.attentionAfter(record.automation_id, after)) {
      const size = ROW_OVERHEAD_BYTES + 2 * (item.title.length + (item.body?.length ?? 0));
      if (items.length === limit || (items.length > 0 && bytes + size > this.maxPageBytes)) {
        more = true;
        break;
      }
      bytes += size;
      items.push(attentionItem(item));
    }
    return { items, next_cursor: more ? items[items.length - 1]!.cursor : null };
  }

  /** `POST …/seen`: keeps max(stored, sent); a malformed cursor or one beyond the latest item → 422. */
  async markSeen(account: string, record: AutomationRecord, cursor: unknown): Promise<{ attention_cursor: string }> {
    const match = typeof cursor === 'string' ? ATTENTION_CURSOR.exec(cursor) : null;
    if (!match) throw invalidRequest('attention_cursor', 'attention_cursor must be an attention cursor att1:<seq>, as the attention items carry.');
    const seq = Number(match[1]);
    if (seq > record.attention_seq) {
      throw invalidRequest('attention_cursor', `attention_cursor att1:${seq} is beyond the latest attention item (att1:${record.attention_seq}).`);
    }
    const stored = await this.log.markSeen(account, record.automation_id, seq);
    return { attention_cursor: `att1:${stored}` };
  }

  private row(record: AutomationRecord, row: OccurrenceRecord): OccurrenceRow {
    const ran = row.status !== 'skipped' && row.run_id !== '';
    const run: RunOutcome | null = ran ? this.launcher.outcome(row.run_id) : null;
    const wait = isOpen(row.status) && run?.wait ? typedWait(run.wait) : null;
    const binding = row.revision === record.definition.revision ? record.definition.trigger : (this.store.revision(record.automation_id, row.revision)?.trigger ?? null);
    const out: OccurrenceRow = {
      run_id: ran ? row.run_id : null,
      index: row.index,
      attempts: row.attempts,
      fired_at: row.fired_at,
      finished_at: row.finished_at,
      status: wait ? 'waiting' : row.status,
      trigger: { source_id: row.source.split('@')[0]!, summary: triggerSummary(row, binding, this.ownerZone(record.account), this.nowMs()) },
      user_turn: row.user_turn,
      answer: row.answer,
      notify: row.notify ?? null,
      artifacts: ran ? this.artifactsOf(record.account, row.run_id) : [],
      waits: wait ? [wait] : [],
      coalesced: row.coalesced,
      scheduled_at: row.scheduled_at,
    };
    if (row.failure && row.status === 'failed') out.failure = row.failure;
    if (ran) out.ledger_url = `/api/gateway/runs/${row.run_id}/ledger`;
    if (ran && run?.workspace_root) out.workspace_url = `/api/gateway/runs/${row.run_id}/workspace`;
    return out;
  }

  private waitOf(runId: string): TypedWait | null {
    const wait = this.launcher.outcome(runId)?.wait;
    return wait ? typedWait(wait) : null;
  }
}

/** `limits.maxPageBytes` when the plugin names none. */
export const DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** What a row carries besides its texts (ids, times, trigger wording), generously. */
const ROW_OVERHEAD_BYTES = 1024;

/** An occurrence row's size as JSON, estimated from its texts (2 bytes a character covers escapes and most UTF-8). */
function rowBytes(row: OccurrenceRecord): number {
  return ROW_OVERHEAD_BYTES + 2 * (row.user_turn.length + row.answer.length + (row.failure?.message.length ?? 0)) + (row.notify ? 2 * JSON.stringify(row.notify).length : 0);
}

function isOpen(status: OccurrenceRecord['status']): boolean {
  return status === 'running' || status === 'admitted' || status === 'waiting';
}

function typedWait(wait: NonNullable<RunOutcome['wait']>): TypedWait {
  const out: TypedWait = { run_id: wait.run_id, wait_key: wait.wait_key, kind: wait.kind, reason: wait.reason };
  if (wait.prompt !== null) out.prompt = wait.prompt;
  if (wait.choices !== null) out.choices = wait.choices;
  return out;
}

function attentionItem(item: AttentionRecord): AttentionItem {
  const out: AttentionItem = { kind: item.kind, automation_id: item.automation_id, run_id: item.run_id, index: item.index, at: item.at, title: item.title, cursor: `att1:${item.seq}` };
  if (item.body !== null) out.body = item.body;
  return out;
}
