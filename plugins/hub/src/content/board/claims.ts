/**
 * `claim:<task>` store rows (reference §8.3): a seat's claim on a piece of work. The hub enforces
 * nothing about them; the board, supervise and `resolve_thread` read them by these rules.
 */
import type { StoreEntry } from '@keel/hub-client';
import type { ChannelStore } from '../store/channel-store.js';

export const CLAIM_PREFIX = 'claim:';

const DONE_WORDS = new Set(['done', 'shipped', 'complete', 'completed', 'delivered', 'closed']);
const PARKED_WORDS = new Set(['parked', 'paused', 'on-hold', 'onhold', 'blocked']);
/** Claims `resolve_thread` no longer reports: finished or given up. */
const SETTLED_WORDS = new Set(['done', 'shipped', 'cancelled', 'canceled', 'abandoned']);

export interface Claim {
  entry: StoreEntry;
  task: string;
  value: Record<string, unknown>;
}

function field(value: Record<string, unknown>, name: string): string {
  const v = value[name];
  return typeof v === 'string' ? v : '';
}

/** The claim's status text (`status`, else `state`). */
export function claimStatus(c: Claim): string {
  return field(c.value, 'status') || field(c.value, 'state');
}

/** The first word of the status, lower-cased. */
export function statusWord(c: Claim): string {
  return claimStatus(c).trim().split(/\s+/)[0]?.toLowerCase() ?? '';
}

export function isDone(c: Claim): boolean {
  return Boolean(c.value.done) || DONE_WORDS.has(statusWord(c));
}

export function isParked(c: Claim): boolean {
  return !isDone(c) && PARKED_WORDS.has(statusWord(c));
}

export function isSettled(c: Claim): boolean {
  return SETTLED_WORDS.has(statusWord(c));
}

/** Who holds the claim: its `owner` field, else whoever wrote the row last. */
export function claimOwner(c: Claim): string {
  return field(c.value, 'owner') || c.entry.updated_by;
}

export function claimField(c: Claim, name: string): string {
  return field(c.value, name);
}

export function claims(store: ChannelStore, channel: string): Claim[] {
  return store.withPrefix(channel, CLAIM_PREFIX).map((entry) => ({
    entry,
    task: entry.key.slice(CLAIM_PREFIX.length),
    value: typeof entry.value === 'object' && entry.value !== null && !Array.isArray(entry.value) ? (entry.value as Record<string, unknown>) : {},
  }));
}
