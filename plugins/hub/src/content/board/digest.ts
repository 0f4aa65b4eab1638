/**
 * The channel digest (reference §6 Digest): phases, standing rulings (and those the viewer still
 * has to acknowledge), open questions (`open`/`blocked` messages whose thread is not closed), what
 * was decided (reference §8.1 B2: a row per closed question and a row per `resolved` post, newest
 * 50) and the `decision:*` rows. Retracted rows are left out: their obligations died with them.
 */
import type { DecidedRow, Digest, OpenQuestion } from '@keel/hub-client';
import type { MessageFacts } from '../../messages/message-views.js';
import type { AgentRecord, Ask, ChannelRecord, StoredMessage } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import type { ChannelStore } from '../store/channel-store.js';
import type { ThreadState } from '../../attention/thread-state.js';
import { phaseLine, phaseRows } from './phases.js';
import type { Rulings } from './rulings.js';

const DECIDED_SHOWN = 50;
const SETTLING = new Set(['open', 'blocked']);

function stringsIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export class Digests {
  constructor(private readonly db: HubDb, private readonly facts: MessageFacts, private readonly store: ChannelStore, private readonly rulings: Rulings, private readonly threads: ThreadState) {}

  digest(c: ChannelRecord, viewer: AgentRecord): Digest {
    const open: OpenQuestion[] = [];
    const decided: DecidedRow[] = [];
    let declinedTotal = 0;
    for (const m of this.db.questionsOf(c.name)) {
      // Retracted rows are `fyi` tombstones: they fall out.
      if (m.kind !== 'message' || m.retracted_at !== null) continue;
      const brief = { seq: m.seq, id: m.id, sender: m.sender, title: m.title, created_at: m.created_at };
      // A `resolved` row (a reply or a standalone post) is its own decision.
      if (m.status === 'resolved') decided.push({ ...brief, resolved: true });
      if (!SETTLING.has(m.status)) continue;
      const replies = this.threads.replies(m);
      if (this.threads.closed(m, replies)) {
        const row = this.question(m, brief, replies);
        declinedTotal += row.declined_asks?.length ?? 0;
        decided.push(row);
      } else {
        const asks = (Array.isArray(m.data?.asks) ? m.data.asks : []) as Ask[];
        const pending = new Set(this.threads.pendingAsks(m, replies));
        open.push({ ...brief, status: m.status, pending_asks: asks.filter((a) => pending.has(a.id)) });
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

  /**
   * A closed question: who answered it substantively (answers minus declines; without asks, who
   * replied at all), who only declined and which asks nobody answered, never counting the asker.
   * `self_resolved` only when the asker's own `resolved` reply closed what was not discharged.
   */
  private question(m: StoredMessage, brief: Omit<DecidedRow, 'answered_by'>, replies: StoredMessage[]): DecidedRow {
    const askIds = this.facts.askIds(m);
    const others = replies.filter((r) => r.sender !== m.sender);
    const row: DecidedRow = { ...brief, answered_by: [] };
    if (!askIds.length) {
      // Without asks any direct reply answers; a retracted one's sender survives.
      row.answered_by = [...new Set(others.map((r) => r.sender))].sort();
    } else {
      const answeredBy = new Set<string>();
      const declinedBy = new Set<string>();
      const answered = new Set<string>();
      // A retracted reply is a tombstone: it answers nothing.
      for (const r of others.filter((o) => o.retracted_at === null)) {
        const declines = stringsIn(r.data?.declines);
        const substantive = stringsIn(r.data?.answers).filter((id) => askIds.includes(id) && !declines.includes(id));
        if (substantive.length) answeredBy.add(r.sender);
        for (const id of substantive) answered.add(id);
        if (declines.some((id) => askIds.includes(id))) declinedBy.add(r.sender);
      }
      // Keel also takes answers posted outside the thread; the ask table remembers the last one.
      for (const id of askIds) {
        const rec = this.db.asks.get([m.channel, id]);
        if (!rec?.answered_by || rec.answered_by === m.sender) continue;
        if (rec.declined) declinedBy.add(rec.answered_by);
        else {
          answeredBy.add(rec.answered_by);
          answered.add(id);
        }
      }
      row.answered_by = [...answeredBy].sort();
      const pending = new Set(this.threads.pendingAsks(m, replies));
      const declinedAsks = askIds.filter((id) => !pending.has(id) && !answered.has(id));
      if (declinedBy.size || declinedAsks.length) {
        row.declined_by = [...declinedBy].sort();
        row.declined_asks = declinedAsks;
      }
    }
    if (!this.threads.discharged(m, replies) && replies.some((r) => r.sender === m.sender && r.retracted_at === null && r.status === 'resolved')) {
      row.self_resolved = true;
    }
    return row;
  }
}
