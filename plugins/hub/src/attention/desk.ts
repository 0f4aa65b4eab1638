/**
 * `GET /desk` (seed §2.11, reference §6 Desk): the operators' worklist across the whole hub —
 * pending asks addressed to an operator, and open messages sent to an operator that nobody has
 * replied to yet. One row per (item, operator), oldest first. Queue rows (store-backed approval
 * queues) have no source on this hub, so `satisfied` stays empty.
 */
import type { DeskAskRow, Desk as ServedDesk } from '@keel/hub-client';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, StoredMessage } from '../records.js';
import { askAddressees, asksByMessage } from './ask-addressees.js';

/** A served ask row, plus the ask it stands for (null for an unanswered open message) and when it was asked. */
export interface DeskRow extends DeskAskRow {
  ask: string | null;
  created_at: number;
}

export interface DeskReport extends ServedDesk {
  rows: DeskRow[];
}

const WHAT_MAX = 120;
const SETTLING = new Set(['open', 'blocked']);

export class Desk {
  constructor(private readonly hub: Hub) {}

  operators(): string[] {
    return this.hub.agents.all().filter((a) => a.operator && a.retired_at === null).map((a) => a.id);
  }

  report(viewer: AgentRecord): DeskReport {
    const now = nowSeconds();
    const operators = this.operators();
    const isOperator = new Set(operators);
    const rows: DeskRow[] = [];
    const row = (m: StoredMessage, operator: string, ask: string | null, what: string, oneAction: string): DeskRow => ({
      kind: 'ask', operator, channel: m.channel, seq: m.seq, id: m.id, ask, what: clip(what), who_waits: m.sender,
      age_minutes: Math.max(0, Math.floor((now - m.created_at) / 60)), one_action: oneAction, created_at: m.created_at,
    });
    for (const { value: c } of this.hub.db.channels.getRange()) {
      if (c.archived) continue;
      for (const { message: m, asks } of asksByMessage(this.hub.db, c.name)) {
        for (const { id, record } of asks) {
          if (record.answered_by !== null) continue;
          for (const op of askAddressees(this.hub.db, record, m).filter((s) => isOperator.has(s))) {
            rows.push(row(m, op, id, record.text, `answer it: POST /channels/${c.name}/messages {status: 'reply', reply_to: '${m.id}', answers: ['${id}']} (or declines: ['${id}'])`));
          }
        }
      }
      for (const m of this.unansweredOpenMessages(c.name, isOperator)) {
        for (const op of m.to.filter((s) => isOperator.has(s) && s !== m.sender)) {
          rows.push(row(m, op, null, m.title || m.body, `reply to it: POST /channels/${c.name}/messages {status: 'resolved', reply_to: '${m.id}'} settles it`));
        }
      }
    }
    rows.sort((a, b) => a.created_at - b.created_at || a.channel.localeCompare(b.channel) || a.seq - b.seq || a.operator.localeCompare(b.operator));
    return { computed_at: now, viewer: viewer.id, operators, rows, satisfied: [], counts: { rows: rows.length, satisfied: 0 } };
  }

  /** Live open messages without asks, addressed to an operator, with no reply from anyone but their sender. */
  private *unansweredOpenMessages(channel: string, isOperator: Set<string>): Generator<StoredMessage> {
    for (const m of this.hub.db.questionsOf(channel)) {
      if (m.kind !== 'message' || m.retracted_at !== null || !SETTLING.has(m.status)) continue;
      if (!m.to.some((s) => isOperator.has(s) && s !== m.sender)) continue;
      if (this.hub.facts.askIds(m).length) continue;
      if (this.hub.facts.replies(m).some((r) => r.sender !== m.sender)) continue;
      yield m;
    }
  }
}

function clip(text: string): string {
  const points = [...text.replace(/\s+/g, ' ').trim()];
  return points.length > WHAT_MAX ? `${points.slice(0, WHAT_MAX - 1).join('')}…` : points.join('');
}
