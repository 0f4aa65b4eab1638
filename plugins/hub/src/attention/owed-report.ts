/**
 * `GET /owed` (seed §2.9, reference §6 OwedReport): what a seat owes and is owed across its
 * channels, computed from the ask table at request time — nothing is cached, so a new answer, a
 * `consumes` or a retraction shows on the next read.
 *
 * - to_answer: pending asks addressed to the viewer (see `askAddressees`), one row per message,
 *   oldest first.
 * - to_consume: the viewer's asks answered (or declined) by someone else and not yet consumed,
 *   one row per (message, answer), oldest answer first.
 * - to_close: the viewer's open messages whose asks are all discharged but that have no
 *   `resolved` reply yet, settled longest ago first.
 * - waiting_on: the viewer's pending asks, one row per addressee, judged by that seat's inbox
 *   cursor (an unaddressed ask in a room waits on nobody in particular and has no row).
 */
import type { CharterDebtRow, OwedReport, OwedToConsumeRow, OwedWaitingRow, PhaseRow } from '@keel/hub-client';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, StoredMessage } from '../records.js';
import { askAddressees, asksByMessage, type MessageAsks } from './ask-addressees.js';

/** Rows other modules contribute (charter debt, phases the seat steers). */
export interface OwedSources {
  charters?: (viewer: AgentRecord) => CharterDebtRow[];
  phases?: (viewer: AgentRecord) => PhaseRow[];
}

const DEFAULT_SLA_MINUTES = 60;
const SETTLING = new Set(['open', 'blocked']);

export class OwedReporter {
  constructor(private readonly hub: Hub, private readonly sources: OwedSources = {}) {}

  report(viewer: AgentRecord): OwedReport {
    const now = nowSeconds();
    const report: OwedReport = {
      charters: this.sources.charters?.(viewer) ?? [],
      phases: this.sources.phases?.(viewer) ?? [],
      to_answer: [], to_consume: [], to_close: [], waiting_on: [],
      counts: { to_answer: 0, to_consume: 0, to_close: 0 },
      computed_at: now,
    };
    for (const channel of this.hub.db.channelsOf(viewer.id)) {
      let sla: number | undefined;
      for (const { message: m, asks } of asksByMessage(this.hub.db, channel)) {
        if (m.sender === viewer.id) {
          this.asAsker(viewer.id, m, asks, report);
          continue;
        }
        const pending = asks.filter((a) => a.record.answered_by === null);
        const naming = pending.filter((a) => askAddressees(this.hub.db, a.record, m).includes(viewer.id));
        if (!naming.length) continue;
        sla ??= this.slaMinutes(channel, viewer);
        report.to_answer.push({
          channel, id: m.id, seq: m.seq, sender: m.sender, title: m.title, pending_asks: pending.map((a) => a.id),
          asks_naming_you: naming.map((a) => a.id), created_at: m.created_at, escalated: now - m.created_at > sla * 60,
        });
      }
    }
    report.to_answer.sort((a, b) => a.created_at - b.created_at);
    report.to_consume.sort((a, b) => a.answer_created_at - b.answer_created_at);
    report.to_close.sort((a, b) => a.answered_at - b.answered_at);
    report.counts = { to_answer: report.to_answer.length, to_consume: report.to_consume.length, to_close: report.to_close.length };
    return report;
  }

  private asAsker(viewer: string, m: StoredMessage, asks: MessageAsks['asks'], report: OwedReport): void {
    const db = this.hub.db;
    const byAnswer = new Map<string, OwedToConsumeRow>();
    for (const { id, record } of asks) {
      if (record.answered_by === null || record.answered_by === viewer || record.consumed) continue;
      const row = byAnswer.get(record.answer_id!);
      if (row) row.your_asks.push(id);
      else {
        byAnswer.set(record.answer_id!, {
          channel: m.channel, id: m.id, seq: m.seq, title: m.title, your_asks: [id], answered_by: record.answered_by,
          answer_id: record.answer_id!, answer_seq: record.answer_seq!, answer_created_at: record.answered_at!,
        });
      }
    }
    report.to_consume.push(...byAnswer.values());

    const pending = asks.filter((a) => a.record.answered_by === null);
    for (const { id, record } of pending) {
      for (const seat of askAddressees(db, record, m)) {
        report.waiting_on.push({ channel: m.channel, seq: m.seq, ask: id, seat, state: this.waitState(seat, m) });
      }
    }

    if (pending.length || !SETTLING.has(m.status)) return;
    if (this.hub.facts.replies(m).some((r) => r.status === 'resolved')) return;
    const last = asks.reduce((a, b) => ((b.record.answered_at ?? 0) > (a.record.answered_at ?? 0) ? b : a));
    const declined = asks.filter((a) => a.record.declined);
    report.to_close.push({
      channel: m.channel, id: m.id, seq: m.seq, title: m.title, answered_by: last.record.answered_by!, answered_at: last.record.answered_at!,
      declined_asks: declined.map((a) => a.id), declined_by: [...new Set(declined.map((a) => a.record.answered_by!))],
    });
  }

  /** A retired seat will never answer; otherwise its inbox cursor says whether it has seen the ask. */
  private waitState(seat: string, m: StoredMessage): OwedWaitingRow['state'] {
    const agent = this.hub.agents.get(seat);
    if (!agent || agent.deleted || agent.retired_at !== null) return 'retired';
    return (this.hub.db.cursors.get([seat, m.channel]) ?? 0) >= m.seq ? 'acked-past-no-reply' : 'not-yet-acked';
  }

  private slaMinutes(channel: string, viewer: AgentRecord): number {
    const c = this.hub.channels.get(channel);
    const sla = c ? this.hub.channelInfo(c, viewer).response_sla_minutes : undefined;
    return typeof sla === 'number' && sla > 0 ? sla : DEFAULT_SLA_MINUTES;
  }
}
