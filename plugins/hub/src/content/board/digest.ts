/**
 * The channel digest (reference §6 Digest): phases, standing rulings (and those the viewer still
 * has to acknowledge), open questions (messages with pending asks), what was decided (asks all
 * discharged, or a `resolved` reply; newest 50) and the `decision:*` rows. Retracted rows are
 * left out: their obligations died with them.
 */
import type { DecidedRow, Digest, OpenQuestion } from '@keel/hub-client';
import type { MessageFacts } from '../../messages/message-views.js';
import type { AgentRecord, Ask, ChannelRecord, StoredMessage } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import type { ChannelStore } from '../store/channel-store.js';
import { phaseLine, phaseRows } from './phases.js';
import type { Rulings } from './rulings.js';

const DECIDED_SHOWN = 50;

export class Digests {
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts, private readonly store: ChannelStore, private readonly rulings: Rulings) {}

  digest(c: ChannelRecord, viewer: AgentRecord): Digest {
    const open: OpenQuestion[] = [];
    const decided: DecidedRow[] = [];
    let declinedTotal = 0;
    for (const { value: m } of this.db.messages.getRange({ start: [c.name, 1], end: [c.name, Number.MAX_SAFE_INTEGER] })) {
      if (m.kind !== 'message' || m.retracted_at !== null) continue;
      const asks = (Array.isArray(m.data?.asks) ? m.data.asks : []) as Ask[];
      const pending = new Set(this.facts.pendingAsks(m));
      if (pending.size) {
        open.push({ seq: m.seq, id: m.id, sender: m.sender, title: m.title, created_at: m.created_at, status: m.status, pending_asks: asks.filter((a) => pending.has(a.id)) });
      }
      const row = this.decided(m, asks, pending.size);
      if (row) {
        declinedTotal += row.declined_asks?.length ?? 0;
        decided.push(row);
      }
    }
    decided.sort((a, b) => b.seq - a.seq);
    const shown = decided.slice(0, DECIDED_SHOWN);
    const phases = phaseRows(this.store, c.name);
    const rulings = this.rulings.active(c.name);
    const unacknowledged = this.rulings.unacknowledged(c, viewer);
    const decisions = this.store.withPrefix(c.name, 'decision:').map((e) => ({ key: e.key, value: e.value, version: e.version, updated_by: e.updated_by }));
    return {
      channel: c.name, phases, phase_lines: phases.map(phaseLine), rulings, unacknowledged_rulings: unacknowledged,
      open_questions: open, decided: shown, decisions,
      counts: {
        open_questions: open.length, decided_shown: shown.length, decided_total: decided.length, declined_asks: declinedTotal,
        decisions: decisions.length, rulings: rulings.length, phases: phases.length, unacknowledged_rulings: unacknowledged.length,
      },
    };
  }

  /** A settled message: every ask discharged, or closed by a `resolved` reply. */
  private decided(m: StoredMessage, asks: Ask[], pending: number): DecidedRow | null {
    const resolved = this.facts.replies(m).find((r) => r.status === 'resolved');
    if (!resolved && (asks.length === 0 || pending > 0)) return null;
    const answeredBy = new Set<string>();
    const declinedBy = new Set<string>();
    const declined: string[] = [];
    for (const ask of asks) {
      const rec = this.db.asks.get([m.channel, ask.id]);
      if (!rec?.answered_by) continue;
      answeredBy.add(rec.answered_by);
      if (rec.declined) {
        declined.push(ask.id);
        declinedBy.add(rec.answered_by);
      }
    }
    if (resolved) answeredBy.add(resolved.sender);
    const row: DecidedRow = { seq: m.seq, id: m.id, sender: m.sender, title: m.title, created_at: m.created_at, answered_by: [...answeredBy].sort() };
    if (declined.length) {
      row.declined_asks = declined;
      row.declined_by = [...declinedBy].sort();
    }
    if (resolved) {
      row.resolved = true;
      row.self_resolved = resolved.sender === m.sender;
    }
    return row;
  }
}
