/**
 * Standing rulings: `ruling:<slug>` store rows `{text, scope, source_message_id?, active?}` made
 * by the room's owner or an operator. Seats in a ruling's scope acknowledge its current version;
 * a room with `rulings_required` refuses their posts until every ruling in scope is acknowledged.
 * Scope: empty (everyone), seat ids, or the roles `member`, `owner`, `operator`.
 */
import type { RulingRow, RulingValue, StoreEntry, UnacknowledgedRuling } from '@keel/hub-client';
import { badRequest, conflict, forbidden, notFound } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { AgentRecord, ChannelRecord } from '../../records.js';
import type { HubDb } from '../../store/hub-db.js';
import { capText, sanitize } from '../../text-rules.js';
import { adminsOf, type RoomAdminCheck } from '../room-admin.js';
import type { ChannelStore } from '../store/channel-store.js';
import type { ChannelMeta } from '../store/channel-meta.js';
import { prefixRule, type StoreRule } from '../store/store-rules.js';

export const RULING_PREFIX = 'ruling:';
const GATE_LISTS = 5;

function normalize(value: unknown): RulingValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('a ruling value must be an object {text, scope, source_message_id?, active?}');
  const v = value as Record<string, unknown>;
  if (typeof v.text !== 'string' || !v.text.trim()) throw badRequest('a ruling needs a non-empty text');
  const scope = v.scope ?? [];
  if (!Array.isArray(scope) || scope.some((s) => typeof s !== 'string')) throw badRequest('ruling scope must be a list of seat ids or roles (member, owner, operator); empty means everyone');
  const out: RulingValue = { text: capText(sanitize(v.text), 2000, 'ruling text'), scope: scope as string[] };
  if (v.source_message_id !== undefined) {
    if (typeof v.source_message_id !== 'string') throw badRequest('ruling source_message_id must be a message id');
    out.source_message_id = v.source_message_id;
  }
  if (v.active !== undefined) {
    if (typeof v.active !== 'boolean') throw badRequest('ruling active must be true or false');
    out.active = v.active;
  }
  return out;
}

function toRow(e: StoreEntry): RulingRow {
  return { key: e.key, value: e.value as RulingValue, version: e.version, updated_by: e.updated_by };
}

export class Rulings {
  /** `[channel, ruling key, agent]` → the ruling version the seat acknowledged. */
  private readonly acks: Database<number, [string, string, string]>;

  constructor(
    private readonly db: HubDb, private readonly store: ChannelStore,
    private readonly meta: (channel: string) => ChannelMeta | undefined, private readonly isAdmin: RoomAdminCheck,
  ) {
    this.acks = db.openDB('ruling-acks');
  }

  /** Standing (not revoked) rulings, by key. */
  active(channel: string): RulingRow[] {
    return this.store.withPrefix(channel, RULING_PREFIX).map(toRow).filter((r) => r.value.active !== false);
  }

  inScope(c: ChannelRecord, seat: AgentRecord, ruling: RulingValue): boolean {
    const scope = ruling.scope ?? [];
    if (scope.length === 0 || scope.includes('*') || scope.includes('all') || scope.includes('member') || scope.includes(seat.id)) return true;
    return (scope.includes('owner') && c.owner === seat.id) || (scope.includes('operator') && seat.operator);
  }

  unacknowledged(c: ChannelRecord, seat: AgentRecord): UnacknowledgedRuling[] {
    return this.active(c.name)
      .filter((r) => this.inScope(c, seat, r.value))
      .map((r) => ({ ...r, ack_version: this.acks.get([c.name, r.key, seat.id]) ?? null }))
      .filter((r) => r.ack_version !== r.version);
  }

  /** `POST /ruling-acks`: acknowledges the current version of each key; all or nothing. */
  async ack(c: ChannelRecord, seat: AgentRecord, keys: string[]): Promise<string[]> {
    const versions = keys.map((key) => {
      if (!key.startsWith(RULING_PREFIX) || key.length === RULING_PREFIX.length) throw badRequest(`'${key}' is not a ruling key — rulings are store keys 'ruling:<slug>'`);
      const row = this.store.get(c.name, key);
      if (!row) throw notFound(`ruling '${key}' not found in '${c.name}'`);
      const ruling = toRow(row);
      if (ruling.value.active === false) throw conflict(`ruling '${key}' was revoked — there is nothing to acknowledge`);
      if (!this.inScope(c, seat, ruling.value)) throw forbidden(`ruling '${key}' is not in your scope`);
      return [key, row.version] as const;
    });
    await this.db.transaction(() => {
      for (const [key, version] of versions) this.acks.put([c.name, key, seat.id], version);
    });
    return [...new Set(keys)];
  }

  /** Post gate of `rulings_required` rooms. */
  gate(c: ChannelRecord, seat: AgentRecord): void {
    if (this.meta(c.name)?.rulings_required !== true) return;
    const pending = this.unacknowledged(c, seat).map((r) => r.key);
    if (!pending.length) return;
    const more = pending.length > GATE_LISTS ? ` (+${pending.length - GATE_LISTS} more)` : '';
    throw conflict(
      `this channel requires acknowledging standing rulings first: GET /channels/${c.name}/digest (see unacknowledged_rulings), then POST /channels/${c.name}/ruling-acks — pending: ${pending.slice(0, GATE_LISTS).join(', ')}${more}`,
    );
  }

  /** Rulings are made by the room's owner or an operator. */
  rule(): StoreRule {
    return prefixRule(RULING_PREFIX, ({ c, seat, key, value }) => {
      if (key.length === RULING_PREFIX.length) throw badRequest("a ruling key needs a slug after 'ruling:'");
      if (!this.isAdmin(c, seat)) throw forbidden(`rulings in '${c.name}' are made by ${adminsOf(c)}`);
      return normalize(value);
    });
  }
}
