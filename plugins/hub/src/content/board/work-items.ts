/**
 * Work items: `work:<id>` store rows (a board card per item), and the cross-channel view of one
 * item id `<package>-<NNNN>` — its rows, claims, decisions and the messages that cite it — over
 * the channels the caller belongs to.
 */
import type { StoreEntry, StoreRow, WorkReport, WorkRow } from '@keel/hub-client';
import { badRequest } from '@keel/plugin-sdk';
import type { HubDb } from '../../store/hub-db.js';
import type { ChannelStore } from '../store/channel-store.js';

export const WORK_PREFIX = 'work:';
/** A lowercase package slug, a hyphen (the last one), four or more digits. */
const ITEM_ID = /^[a-z0-9](?:[a-z0-9_.-]*[a-z0-9])?-\d{4,}$/;

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? ((value as Record<string, unknown>)[name] ?? null) : null;
}

function text(value: unknown, name: string): string | null {
  const v = field(value, name);
  return v === null ? null : String(v);
}

export function toWorkRow(e: StoreEntry): WorkRow {
  return {
    id: e.key.slice(WORK_PREFIX.length), title: text(e.value, 'title'), status: text(e.value, 'status'), owner: text(e.value, 'owner'),
    card: field(e.value, 'card'), priority: field(e.value, 'priority'), receipt: field(e.value, 'receipt'),
    version: e.version, updated_by: e.updated_by, updated_at: e.updated_at,
  };
}

function storeRow(e: StoreEntry): StoreRow {
  return { channel: e.channel, key: e.key, value: e.value, version: e.version, updated_by: e.updated_by, updated_at: e.updated_at };
}

function mentions(haystack: string, id: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_.-])${escaped}($|[^a-z0-9_-])`, 'i').test(haystack);
}

export class WorkItems {
  constructor(private readonly db: HubDb, private readonly store: ChannelStore) {}

  rows(channel: string): WorkRow[] {
    return this.store.withPrefix(channel, WORK_PREFIX).map(toWorkRow);
  }

  /** `GET /work/{item_id}` across `channels` (the caller's). */
  report(itemId: string, channels: string[]): WorkReport {
    if (!ITEM_ID.test(itemId)) throw badRequest(`work item id '${itemId}' must look like '<package>-<NNNN>' (a lowercase package slug, a hyphen, digits)`);
    const report: WorkReport = { item_id: itemId, work_rows: [], claims: [], decisions: [], messages: [] };
    for (const channel of channels) {
      const work = this.store.get(channel, `${WORK_PREFIX}${itemId}`);
      if (work) report.work_rows.push({ channel, value: work.value, version: work.version, updated_by: work.updated_by, updated_at: work.updated_at });
      for (const claim of this.store.withPrefix(channel, `claim:${itemId}`)) {
        if (claim.key === `claim:${itemId}` || claim.key.startsWith(`claim:${itemId}:`)) report.claims.push(storeRow(claim));
      }
      for (const decision of this.store.withPrefix(channel, 'decision:')) {
        if (mentions(decision.key, itemId) || mentions(JSON.stringify(decision.value) ?? '', itemId)) report.decisions.push(storeRow(decision));
      }
      for (const { value: m } of this.db.messages.getRange({ start: [channel, 1], end: [channel, Number.MAX_SAFE_INTEGER] })) {
        if (m.kind !== 'message' || m.retracted_at !== null) continue;
        const via = m.data?.item_ref === itemId ? 'item_ref' : mentions(`${m.title}\n${m.body}`, itemId) ? 'mention' : null;
        if (via) report.messages.push({ id: m.id, channel, seq: m.seq, sender: m.sender, status: m.status, title: m.title, reply_to: m.reply_to, created_at: m.created_at, via });
      }
    }
    report.messages.sort((a, b) => a.created_at - b.created_at);
    return report;
  }
}
