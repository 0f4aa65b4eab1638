/**
 * `GET /stats/activity` (reference §8.3): how busy the hub is. Ten one-minute slots and six
 * ten-minute buckets, aligned to the wall clock (the current, partial slot included, empty slots
 * emitted), counting every stored row: people's, system and fs rows, retracted ones too, split into
 * direct channels (`dm`) and the rest (`public`). Seat names are scoped: a seat sees itself, `hub`
 * and the members of its channels (an operator sees everyone); the count covers every sender.
 */
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord } from '../records.js';

const MINUTE_SLOTS = 10;
const BUCKET_SECONDS = 600;
const BUCKET_SLOTS = 6;

interface Slot { start: number; label: string; total: number; public: number; dm: number }
interface Tally { total: number; public: number; dm: number }

/** `HH:MM` in the hub's local time. */
export function clockLabel(seconds: number): string {
  const d = new Date(seconds * 1000);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

function slots(count: number, width: number, now: number): Slot[] {
  const current = Math.floor(now / width) * width;
  return Array.from({ length: count }, (_, i) => {
    const start = current - width * (count - 1 - i);
    return { start, label: clockLabel(start), total: 0, public: 0, dm: 0 };
  });
}

function add(t: Tally, dm: boolean): void {
  t.total++;
  if (dm) t.dm++;
  else t.public++;
}

function per(total: number, minutes: number): number {
  return Math.round((total / minutes) * 100) / 100;
}

export class ActivityStats {
  constructor(private readonly hub: Hub) {}

  report(viewer: AgentRecord) {
    const { db } = this.hub;
    const now = nowSeconds();
    const perMinute = slots(MINUTE_SLOTS, 60, now);
    const perBucket = slots(BUCKET_SLOTS, BUCKET_SECONDS, now);
    const from = Math.min(perMinute[0].start, perBucket[0].start, now - BUCKET_SECONDS * BUCKET_SLOTS);
    const last10: Tally = { total: 0, public: 0, dm: 0 };
    const last60: Tally = { total: 0, public: 0, dm: 0 };
    const senders = new Set<string>();
    let lastAt: number | null = null;
    for (const { value: c } of db.channels.getRange()) {
      for (const { value: m } of db.messages.getRange({ start: [c.name, Number.MAX_SAFE_INTEGER], end: [c.name, 0], reverse: true })) {
        lastAt = lastAt === null ? m.created_at : Math.max(lastAt, m.created_at);
        if (m.created_at < from) break;
        const minute = perMinute.find((s) => m.created_at >= s.start && m.created_at < s.start + 60);
        if (minute) add(minute, c.is_dm);
        const bucket = perBucket.find((s) => m.created_at >= s.start && m.created_at < s.start + BUCKET_SECONDS);
        if (bucket) add(bucket, c.is_dm);
        if (m.created_at > now - 600) {
          add(last10, c.is_dm);
          senders.add(m.sender);
        }
        if (m.created_at > now - 3600) add(last60, c.is_dm);
      }
    }
    const visible = this.visibleSeats(viewer);
    const rate10 = per(last10.total, 10);
    return {
      now,
      windows: { per_minute_slots: MINUTE_SLOTS, bucket_seconds: BUCKET_SECONDS, bucket_slots: BUCKET_SLOTS },
      per_minute: perMinute,
      per_bucket: perBucket,
      totals: { last_10m: last10, last_60m: last60 },
      rate_per_minute: { last_10m: rate10, last_60m: per(last60.total, 60) },
      active_seats: [...senders].filter((s) => visible === null || visible.has(s)).sort(),
      active_seat_count: senders.size,
      last_message_at: lastAt,
      quiet_for_seconds: lastAt === null ? null : Math.max(0, now - lastAt),
      verdict: last10.total > 0
        ? `active — ${last10.total} messages in the last 10 minutes (${rate10.toFixed(1)}/min)`
        : lastAt !== null ? `quiet since ${clockLabel(lastAt)}` : 'silent — this hub has never carried a message',
    };
  }

  /** The seats a viewer may see named (null: everyone, for an operator). */
  private visibleSeats(viewer: AgentRecord): Set<string> | null {
    if (viewer.operator) return null;
    const seen = new Set([viewer.id, 'hub']);
    for (const channel of this.hub.db.channelsOf(viewer.id)) for (const id of this.hub.db.memberIds(channel)) seen.add(id);
    return seen;
  }
}
