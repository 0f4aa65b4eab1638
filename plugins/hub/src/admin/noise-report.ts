/**
 * The noise report (reference §8.2 `GET /admin/noise`): per room, how many seats each open question
 * woke under the old rule (every other member) and under the addressed rule (only the named seats
 * when a row names any), and how many threads had more than one speaker. Counts only; no bodies.
 */
import type { HubDb } from '../store/hub-db.js';
import type { StoredMessage } from '../records.js';

export const NOISE_HOURS_DEFAULT = 24;
export const NOISE_HOURS_MAX = 336;

export interface NoiseChannelRow {
  channel: string;
  members: number;
  messages: number;
  broadcast_opens: number;
  addressed_opens: number;
  wakes_old_rule: number;
  wakes_new_rule: number;
  multi_speaker_threads: number;
  avg_speakers_per_thread: number;
}

export interface NoiseReport {
  hours: number;
  channels: NoiseChannelRow[];
  computed_at: number;
}

/** The seats a row names besides its sender: `to` and every ask's `to`. */
function namedSeats(m: StoredMessage): Set<string> {
  const named = new Set(m.to);
  const asks = Array.isArray(m.data?.asks) ? (m.data.asks as Array<{ to?: unknown }>) : [];
  for (const ask of asks) if (Array.isArray(ask.to)) for (const id of ask.to) if (typeof id === 'string') named.add(id);
  named.delete(m.sender);
  return named;
}

/** `hours` clamped to [1, 336]. */
export function noiseHours(hours: number): number {
  return Math.min(NOISE_HOURS_MAX, Math.max(1, hours));
}

export function noiseReport(db: HubDb, hours: number, now: number): NoiseReport {
  const since = now - hours * 3600;
  const channels: NoiseChannelRow[] = [];
  for (const c of [...db.channels.getRange()].map((e) => e.value).filter((c) => !c.is_dm).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // Rows are stored in seq order, which is creation order: read back from the head to the window's start.
    const rows: StoredMessage[] = [];
    for (const { value } of db.messages.getRange({ start: [c.name, Number.MAX_SAFE_INTEGER], end: [c.name, 0], reverse: true })) {
      if (value.created_at < since) break;
      if (value.kind === 'message' && value.retracted_at === null) rows.push(value);
    }
    if (!rows.length) continue;
    const audience = Math.max(0, db.memberIds(c.name).size - 1);
    const row: NoiseChannelRow = {
      channel: c.name, members: audience + 1, messages: rows.length, broadcast_opens: 0, addressed_opens: 0,
      wakes_old_rule: 0, wakes_new_rule: 0, multi_speaker_threads: 0, avg_speakers_per_thread: 0,
    };
    const threads = new Map<string, Set<string>>();
    for (const m of rows) {
      const key = m.reply_to ?? m.id;
      threads.set(key, (threads.get(key) ?? new Set()).add(m.sender));
      if (m.status !== 'open' && m.status !== 'blocked') continue;
      const named = namedSeats(m);
      row.wakes_old_rule += audience;
      if (named.size) {
        row.addressed_opens++;
        row.wakes_new_rule += named.size;
      } else {
        row.broadcast_opens++;
        row.wakes_new_rule += audience;
      }
    }
    const speakers = [...threads.values()].map((s) => s.size);
    row.multi_speaker_threads = speakers.filter((n) => n >= 2).length;
    row.avg_speakers_per_thread = Math.round((speakers.reduce((a, b) => a + b, 0) / speakers.length) * 100) / 100;
    channels.push(row);
  }
  return { hours, channels, computed_at: now };
}
