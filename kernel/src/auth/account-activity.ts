/**
 * A bounded activity log per account, written by the kernel: sign-ins (and failed claims of a known
 * account's code), sign-outs, tokens issued and revoked, sign-in codes, suspensions, preference
 * changes, and authenticated requests coalesced into one entry per `activityCoalesceMs` window with
 * a count. Only the newest `activityLimit` entries of an account are kept.
 *
 * Request counts are kept in memory until their window closes, the log is read, or the kernel stops;
 * a crash can lose the count of the window in flight, never an entry of another kind.
 */
import type { Database, RootDatabase } from 'lmdb';
import { prefixRange, type Logger } from '@keel/plugin-sdk';
import type { AccountsConfig } from '../config/kernel-config.js';

export type ActivityKind =
  | 'sign_in' | 'sign_out' | 'sessions_ended' | 'signin_code_issued'
  | 'token_issued' | 'token_revoked' | 'account_suspended' | 'account_restored'
  | 'preferences_changed' | 'requests';

export interface ActivityEntry {
  /** Opaque cursor of this entry (`before=` pages past it). */
  id: string;
  at: string;
  kind: ActivityKind;
  /** The account that did it, when another than the owner (an admin). */
  actor: string | null;
  /** How the request was signed in: `bearer` or `session` (browser cookie); `login`/`claim` for sign-ins. */
  via: string | null;
  /** The client address (the socket's peer). */
  source: string | null;
  token_id: string | null;
  /** `requests` entries: requests in the window, and its first and last. */
  count: number | null;
  first_at: string | null;
  last_at: string | null;
}

type StoredEntry = Omit<ActivityEntry, 'id'>;
type EntryKey = [string, number, number];

interface RequestWindow {
  key: EntryKey;
  /** The entry as first written; `count`, `lastMs` and `source` are counted here and put into it when written. */
  entry: StoredEntry;
  count: number;
  lastMs: number;
  source: string;
  startedMs: number;
  dirty: boolean;
  /** The last write of this entry: an update waits for it, or it would find the entry not yet there. */
  written: Promise<unknown>;
}

export class AccountActivity {
  private readonly db: Database<StoredEntry, EntryKey>;
  private readonly windows = new Map<string, RequestWindow>();
  private seq = 0;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(root: RootDatabase, private readonly nowMs: () => number, private readonly settings: AccountsConfig, private readonly log: Logger) {
    this.db = root.openDB<StoredEntry, EntryKey>({ name: 'core:account-activity' });
  }

  /** Appends an entry (durable when the promise resolves) and drops the oldest beyond the limit. */
  async record(account: string, kind: Exclude<ActivityKind, 'requests'>, fields: Partial<Pick<ActivityEntry, 'actor' | 'via' | 'source' | 'token_id'>> = {}): Promise<void> {
    const now = this.nowMs();
    const entry: StoredEntry = { at: new Date(now).toISOString(), kind, actor: null, via: null, source: null, token_id: null, count: null, first_at: null, last_at: null, ...fields };
    await this.append(account, this.keyFor(account, now), entry);
  }

  /** Counts one authenticated request; synchronous, never waits on the disk. */
  noteRequest(account: string, via: string, source: string): void {
    const now = this.nowMs();
    const slot = `${account}\u0000${via}`;
    const open = this.windows.get(slot);
    if (open && now - open.startedMs < this.settings.activityCoalesceMs) {
      // Counted only: the entry is made (and its time formatted) when it is written, not at every request.
      open.count++;
      open.lastMs = now;
      open.source = source;
      open.dirty = true;
      return;
    }
    if (open) this.flushWindow(open);
    const at = new Date(now).toISOString();
    const window: RequestWindow = {
      key: this.keyFor(account, now),
      entry: { at, kind: 'requests', actor: null, via, source, token_id: null, count: 1, first_at: at, last_at: at },
      count: 1,
      lastMs: now,
      source,
      startedMs: now,
      dirty: false,
      written: Promise.resolve(),
    };
    this.windows.set(slot, window);
    window.written = this.track(this.append(account, window.key, window.entry));
  }

  /** The account's entries, newest first, `limit` of them, older than the entry `before` names. */
  async page(account: string, options: { limit: number; before?: string }): Promise<{ items: ActivityEntry[]; next_cursor: string | null }> {
    await this.flush(account);
    const before = options.before ? parseCursor(options.before) : null;
    const newestFirst = prefixRange([account], { reverse: true });
    const start = before && before[0] === account ? before : newestFirst.start;
    const items: ActivityEntry[] = [];
    for (const { key, value } of this.db.getRange({ ...newestFirst, start, limit: options.limit + 1 })) {
      if (before && key[1] === before[1] && key[2] === before[2]) continue;
      items.push({ id: cursorOf(key), ...value });
      if (items.length > options.limit) break;
    }
    const more = items.length > options.limit;
    if (more) items.length = options.limit;
    return { items, next_cursor: more ? items[items.length - 1]!.id : null };
  }

  /** When the account last did anything the log knows of (its newest entry), or null. */
  lastActiveAt(account: string): string | null {
    const open = [...this.windows.values()].filter((w) => w.key[0] === account).map((w) => new Date(w.lastMs).toISOString());
    for (const { value } of this.db.getRange({ ...prefixRange([account], { reverse: true }), limit: 1 })) open.push(value.last_at ?? value.at);
    return open.sort().at(-1) ?? null;
  }

  /** Writes the open request counts of one account, or of all (at stop), and waits for pending writes. */
  async flush(account?: string): Promise<void> {
    for (const window of this.windows.values()) if (!account || window.key[0] === account) this.flushWindow(window);
    await Promise.allSettled([...this.pending]);
  }

  private flushWindow(window: RequestWindow): void {
    if (!window.dirty) return;
    window.dirty = false;
    const { key } = window;
    const entry: StoredEntry = { ...window.entry, count: window.count, last_at: new Date(window.lastMs).toISOString(), source: window.source };
    // After the entry's previous write, and only if it is still there: it may have been trimmed away meanwhile.
    window.written = this.track(window.written.then(() => (this.db.get(key) ? this.db.put(key, entry) : undefined)));
  }

  private keyFor(account: string, nowMs: number): EntryKey {
    this.seq = (this.seq + 1) % 1_000_000_000;
    return [account, nowMs, this.seq];
  }

  private async append(account: string, key: EntryKey, entry: StoredEntry): Promise<void> {
    await this.db.put(key, entry);
    const count = this.db.getKeysCount(prefixRange([account]));
    const excess = count - this.settings.activityLimit;
    if (excess <= 0) return;
    const oldest = [...this.db.getKeys({ ...prefixRange([account]), limit: excess })];
    await this.db.transaction(() => {
      for (const old of oldest) this.db.remove(old);
    });
  }

  /** Keeps `work` until it settles (flush waits for it); answers it with its failure logged, never rejecting. */
  private track(work: Promise<unknown>): Promise<unknown> {
    const guarded = work.catch((err: unknown) => this.log.warn('could not write an activity entry', { err }));
    this.pending.add(guarded);
    void guarded.finally(() => this.pending.delete(guarded));
    return guarded;
  }
}

function cursorOf(key: EntryKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function parseCursor(cursor: string): EntryKey | null {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 3 && typeof value[0] === 'string' && Number.isSafeInteger(value[1]) && Number.isSafeInteger(value[2])) return value as EntryKey;
  } catch {
    // Not one of ours: answer from the newest entry.
  }
  return null;
}
