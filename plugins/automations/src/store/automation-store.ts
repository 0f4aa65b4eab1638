/**
 * Automations in LMDB: one record per automation (its definition and the scheduler's state), an
 * index by owner (newest first), an index by `wake_at` (what the engine must look at next), an
 * index by owner and status (counts), the kept revisions of each definition and the command
 * receipts. Every change goes through `create` or `update`, one transaction each, so the indexes
 * always agree with the records (also with a separate `keel runner` writing the same environment).
 */
import type { Database } from 'lmdb';
import { prefixEnd, prefixRange, type PluginStorage } from '@keel/plugin-sdk';
import type { AutomationDefinition, AutomationRecord, AutomationStatus, CommandReceiptRecord } from '../model.js';

/** Writes a mutation may make beside the record, inside the same transaction. */
export interface StoreTransaction {
  /** Keeps a definition as revision `definition.revision` of its automation. */
  putRevision(definition: AutomationDefinition): void;
  putReceipt(automationId: string, receipt: CommandReceiptRecord): void;
  /** A receipt as stored now (including one put earlier in this transaction). */
  receipt(automationId: string, commandId: string): CommandReceiptRecord | undefined;
}

/**
 * Computes the record's next state from the current one (synchronously, inside the transaction);
 * returns it, or undefined to leave the record as it is. A throw aborts every write of the call.
 */
export type Mutation = (current: AutomationRecord, tx: StoreTransaction) => AutomationRecord | undefined;

export interface OwnerPage {
  items: AutomationRecord[];
  /** Opaque; null on the last page. */
  next_cursor: string | null;
}

export interface OwnerListOptions {
  /** From a previous page's `next_cursor` (checked by `decodeOwnerCursor` first). */
  cursor?: string | null;
  limit: number;
  /** Only these statuses (all when absent). */
  statuses?: readonly AutomationStatus[];
  /** Index entries read at most for one page (a filter skips records): the page then ends early, with a cursor. */
  maxScan?: number;
}

export interface CreateResult {
  record: AutomationRecord;
  /** False when an automation with this id existed already (the caller compares `request_digest`). */
  created: boolean;
}

type OwnerKey = [string, string, string];
type WakeKey = [string, string];
type StatusKey = [string, string, string];
type RevisionKey = [string, number];
type ReceiptKey = [string, string];

export class AutomationStore {
  private readonly records: Database<AutomationRecord, string>;
  /** `[account, created_at, automation_id]` → true: an owner's automations, newest first walking backwards. */
  private readonly byOwner: Database<true, OwnerKey>;
  /** `[wake_at, automation_id]` → true: automations the engine must look at, soonest first. */
  private readonly byWake: Database<true, WakeKey>;
  /** `[account, status, automation_id]` → true: counts per status (`archived_automations`) without reading records. */
  private readonly byStatus: Database<true, StatusKey>;
  private readonly revisions: Database<AutomationDefinition, RevisionKey>;
  private readonly receipts: Database<CommandReceiptRecord, ReceiptKey>;

  constructor(private readonly storage: PluginStorage) {
    this.records = storage.openDB<AutomationRecord, string>('automations');
    this.byOwner = storage.openDB<true, OwnerKey>('automations-by-owner');
    this.byWake = storage.openDB<true, WakeKey>('automations-by-wake');
    this.byStatus = storage.openDB<true, StatusKey>('automations-by-status');
    this.revisions = storage.openDB<AutomationDefinition, RevisionKey>('automation-revisions');
    this.receipts = storage.openDB<CommandReceiptRecord, ReceiptKey>('automation-receipts');
  }

  get(automationId: string): AutomationRecord | undefined {
    return this.records.get(automationId);
  }

  /**
   * Writes a new automation and its revision 1, unless one with the same id exists: then nothing is
   * written and the existing record is answered (`created: false`). One transaction: two identical
   * requests at once make one automation.
   */
  create(record: AutomationRecord): Promise<CreateResult> {
    return this.storage.transaction(() => {
      const existing = this.records.get(record.automation_id);
      if (existing) return { record: existing, created: false };
      void this.records.put(record.automation_id, record);
      void this.byOwner.put(ownerKey(record), true);
      void this.byStatus.put(statusKey(record), true);
      if (record.wake_at) void this.byWake.put([record.wake_at, record.automation_id], true);
      void this.revisions.put([record.automation_id, record.definition.revision], record.definition);
      return { record, created: true };
    });
  }

  /**
   * Read-modify-write of one automation in one transaction; the indexes follow the record (its
   * `wake_at` and `status`; account and creation time never change). Resolves to the record as
   * stored afterwards, or undefined when there is no such automation.
   */
  update(automationId: string, mutate: Mutation): Promise<AutomationRecord | undefined> {
    return this.storage.transaction(() => {
      const current = this.records.get(automationId);
      if (!current) return undefined;
      const next = mutate(current, this.transactionView());
      if (!next || next === current) return current;
      if (next.automation_id !== current.automation_id || next.account !== current.account || next.created_at !== current.created_at) {
        throw new Error(`automation ${automationId}: an update may not change its id, owner or creation time`);
      }
      if (current.wake_at !== next.wake_at) {
        if (current.wake_at) void this.byWake.remove([current.wake_at, automationId]);
        if (next.wake_at) void this.byWake.put([next.wake_at, automationId], true);
      }
      if (current.status !== next.status) {
        void this.byStatus.remove(statusKey(current));
        void this.byStatus.put(statusKey(next), true);
      }
      void this.records.put(automationId, next);
      return next;
    });
  }

  private transactionView(): StoreTransaction {
    return {
      putRevision: (definition) => void this.revisions.put([definition.automation_id, definition.revision], definition),
      putReceipt: (automationId, receipt) => void this.receipts.put([automationId, receipt.command_id], receipt),
      receipt: (automationId, commandId) => this.receipts.get([automationId, commandId]),
    };
  }

  /** An owner's automations newest first (creation time, then id), one page, filtered by status. */
  listByOwner(account: string, options: OwnerListOptions): OwnerPage {
    const statuses = options.statuses ? new Set(options.statuses) : null;
    const after = options.cursor ? decodeOwnerCursor(options.cursor) : null;
    const range = prefixRange([account], { reverse: true });
    // Walking backwards, the page after a cursor starts just below the cursor's key.
    const start = after ? { ...range, start: [account, after.created_at, after.automation_id], exclusiveStart: true } : range;
    const items: AutomationRecord[] = [];
    let last: OwnerKey | null = null;
    let scanned = 0;
    const maxScan = options.maxScan ?? Infinity;
    for (const key of this.byOwner.getKeys(start)) {
      if (items.length === options.limit || scanned >= maxScan) return { items, next_cursor: encodeOwnerCursor(last!) };
      last = key;
      scanned++;
      const record = this.records.get(key[2]);
      if (!record || record.account !== account) continue;
      if (statuses && !statuses.has(record.status)) continue;
      items.push(record);
    }
    return { items, next_cursor: null };
  }

  /** How many of the owner's automations have this status, from the status index alone. */
  countByStatus(account: string, status: AutomationStatus): number {
    return this.byStatus.getKeysCount(prefixRange([account, status]));
  }

  /** How many automations the owner has (any status), from the status index alone. */
  countByOwner(account: string): number {
    return this.byStatus.getKeysCount(prefixRange([account]));
  }

  /**
   * Automations whose `wake_at` is at or before `isoTime`, soonest first, at most `limit`. Times are
   * `Date.toISOString()` strings (fixed width, UTC), so key order is time order.
   */
  dueBy(isoTime: string, limit: number): AutomationRecord[] {
    const out: AutomationRecord[] = [];
    // Every `[isoTime, id]` lies below `prefixEnd([isoTime])`, every later time above it.
    for (const key of this.byWake.getKeys({ end: prefixEnd([isoTime]) })) {
      if (out.length >= limit) break;
      const record = this.records.get(key[1]);
      if (record && record.wake_at === key[0]) out.push(record);
    }
    return out;
  }

  /** The earliest `wake_at` of any automation, or null when none waits (the engine sleeps until it). */
  nextWake(): string | null {
    for (const key of this.byWake.getKeys({ limit: 1 })) return key[0];
    return null;
  }

  /** Every automation, in id order (the engine's start reads them once). */
  *all(): Generator<AutomationRecord> {
    for (const { value } of this.records.getRange()) yield value;
  }

  revision(automationId: string, revision: number): AutomationDefinition | undefined {
    return this.revisions.get([automationId, revision]);
  }

  /** Kept revisions newest first, `before` (exclusive) a revision number, at most `limit`. */
  revisionsOf(automationId: string, options: { before?: number | null; limit: number }): AutomationDefinition[] {
    const range = prefixRange([automationId], { reverse: true });
    const start = options.before != null ? { ...range, start: [automationId, options.before], exclusiveStart: true } : range;
    const out: AutomationDefinition[] = [];
    for (const { value } of this.revisions.getRange({ ...start, limit: options.limit })) out.push(value);
    return out;
  }

  receipt(automationId: string, commandId: string): CommandReceiptRecord | undefined {
    return this.receipts.get([automationId, commandId]);
  }
}

function ownerKey(record: AutomationRecord): OwnerKey {
  return [record.account, record.created_at, record.automation_id];
}

function statusKey(record: AutomationRecord): StatusKey {
  return [record.account, record.status, record.automation_id];
}

const CURSOR_PREFIX = 'auto1:';

/** A listing cursor names the last key read: `auto1:<base64url of [created_at, automation_id]>`. */
export function encodeOwnerCursor(key: OwnerKey): string {
  return CURSOR_PREFIX + Buffer.from(JSON.stringify([key[1], key[2]]), 'utf8').toString('base64url');
}

/** The position a cursor names, or null when it is not one this store made. */
export function decodeOwnerCursor(cursor: string): { created_at: string; automation_id: string } | null {
  if (!cursor.startsWith(CURSOR_PREFIX) || cursor.length > 200) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return null;
    if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value[0]) || !/^[0-9a-f-]{36}$/.test(value[1])) return null;
    return { created_at: value[0], automation_id: value[1] };
  } catch {
    return null;
  }
}
