/**
 * Channels and membership: rooms (public or private), direct channels `dm:<a>--<b>`, the built-in
 * public `commons`. Membership changes post their notices in the same transaction.
 */
import type { Channel, ChannelRow } from '@keel/hub-client';
import { badRequest, conflict, forbidden, notFound } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord, MemberRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { systemNotice, type HubWriter, type WriteScope } from '../messages/hub-writer.js';
import * as notices from '../notices.js';

export const COMMONS = 'commons';
const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;
const RESERVED = new Set(['hub', 'hub-alerts']);

export function dmName(a: string, b: string): string {
  return `dm:${[a, b].sort().join('--')}`;
}

export function channelView(c: ChannelRecord): Channel {
  return { name: c.name, private: c.private, created_by: c.created_by, created_at: c.created_at };
}

/** What the rest of the hub does when a room is created or a seat leaves one; given by the composition root. */
export interface ChannelHooks {
  onCreate: ReadonlyArray<(w: WriteScope, channel: ChannelRecord) => void>;
  onLeave: ReadonlyArray<(channel: string, agent: string) => void>;
}

export class ChannelDirectory {
  /** Extra set-up of a new room inside its creating write (the room charter is seeded here). */
  readonly onCreate: ChannelHooks['onCreate'];
  /** Extra clean-up when a seat leaves or is removed from a channel (runs inside the write). */
  readonly onLeave: ChannelHooks['onLeave'];

  constructor(private readonly db: HubDb, private readonly writer: HubWriter, hooks: ChannelHooks) {
    this.onCreate = hooks.onCreate;
    this.onLeave = hooks.onLeave;
  }

  get(name: string): ChannelRecord | undefined {
    return this.db.channels.get(name);
  }

  /** The channel, or 404 with the hub's sentence. */
  require(name: string): ChannelRecord {
    const c = this.db.channels.get(name);
    if (!c) throw missingChannel(name);
    return c;
  }

  /**
   * Whether `seat` may learn that `c` exists: a public room, a channel it belongs to, any channel
   * for an operator. Everyone else gets, for a private channel, exactly the answer a missing
   * channel gets (issue 9 item 16), so room and DM names cannot be probed.
   */
  knows(c: ChannelRecord, seat: Pick<AgentRecord, 'id' | 'operator'>): boolean {
    return !c.private || seat.operator || this.db.isMember(c.name, seat.id);
  }

  /** `require` for a caller: a private channel it may not know of (unless `knownAnyway`) is the same 404 as a missing one. */
  requireKnown(name: string, seat: Pick<AgentRecord, 'id' | 'operator'>, knownAnyway?: (c: ChannelRecord) => boolean): ChannelRecord {
    const c = this.require(name);
    if (!this.knows(c, seat) && !knownAnyway?.(c)) throw missingChannel(name);
    return c;
  }

  /** The membership gate of every `/channels/{c}/...` route: 403 for a public room, 404 for a private channel the seat may not know of. */
  requireMember(name: string, agent: string): ChannelRecord {
    const c = this.require(name);
    if (!this.db.isMember(name, agent)) {
      if (c.private && this.db.agents.get(agent)?.operator !== true) throw missingChannel(name);
      throw forbidden(`'${agent}' is not a member of '${name}'`);
    }
    return c;
  }

  /** Creates `commons` on first boot. */
  async ensureCommons(): Promise<void> {
    if (this.db.channels.doesExist(COMMONS)) return;
    await this.writer.run(() => {
      if (this.db.channels.doesExist(COMMONS)) return;
      this.db.channels.put(COMMONS, { name: COMMONS, private: false, created_by: 'hub', created_at: nowSeconds(), owner: null, is_dm: false, archived: false, archived_at: null });
    });
  }

  validateNewName(name: string): void {
    if (typeof name !== 'string' || !SLUG.test(name)) throw badRequest('channel name must be a simple slug (no spaces, slashes or control characters)');
    if (name.startsWith('dm:')) throw badRequest("channel names starting with 'dm:' are reserved for direct channels");
    if (RESERVED.has(name)) throw badRequest(`channel name '${name}' is reserved by the hub`);
  }

  /** Inside a write: creates a room owned by `creator` (who becomes its owner) with its notice. */
  createIn(w: WriteScope, creator: string, name: string, isPrivate: boolean): ChannelRecord {
    this.validateNewName(name);
    if (this.db.channels.doesExist(name)) throw conflict(`channel '${name}' already exists`);
    const now = nowSeconds();
    const c: ChannelRecord = { name, private: isPrivate, created_by: creator, created_at: now, owner: creator, is_dm: false, archived: false, archived_at: null };
    this.db.channels.put(name, c);
    this.addMemberIn(name, creator, 'owner', now);
    w.insert(systemNotice(name, notices.channelCreated(creator), now));
    for (const hook of this.onCreate) hook(w, c);
    this.setCursorToHead(creator, name);
    return c;
  }

  /** Inside a write: makes `agent` a member, posts `<id> joined[ — about]`, moves its cursor to the head. */
  joinIn(w: WriteScope, channel: string, agent: AgentRecord, role: MemberRecord['role'] = 'member'): void {
    const now = nowSeconds();
    this.addMemberIn(channel, agent.id, role, now);
    w.insert(systemNotice(channel, notices.joined(agent.id, agent.about), now));
    this.setCursorToHead(agent.id, channel);
  }

  addMemberIn(channel: string, agent: string, role: MemberRecord['role'], at: number): void {
    this.db.members.put([channel, agent], { agent_id: agent, role, joined_at: at });
    this.db.memberships.put([agent, channel], 1);
    this.db.membershipChanged(channel);
  }

  /** Inside a write: `agent` leaves with a notice; its ratings there are withdrawn (and whatever `onLeave` adds). */
  leaveIn(w: WriteScope, channel: string, agent: string): void {
    this.removeMemberIn(channel, agent);
    for (const { key, value } of this.db.ratings.getRange()) if (key[0] === channel && value.rater === agent) this.db.ratings.remove(key);
    for (const hook of this.onLeave) hook(channel, agent);
    w.insert(systemNotice(channel, notices.left(agent), nowSeconds()));
  }

  removeMemberIn(channel: string, agent: string): void {
    this.db.members.remove([channel, agent]);
    this.db.memberships.remove([agent, channel]);
    this.db.membershipChanged(channel);
  }

  setCursorToHead(agent: string, channel: string): void {
    this.db.cursors.put([agent, channel], this.db.lastSeq(channel));
  }

  /** Inside a write: the direct channel of two seats, created (ownerless, private) on first use. */
  ensureDmIn(w: WriteScope, a: AgentRecord, b: AgentRecord): ChannelRecord {
    const name = dmName(a.id, b.id);
    let c = this.db.channels.get(name);
    const now = nowSeconds();
    if (!c) {
      c = { name, private: true, created_by: a.id, created_at: now, owner: null, is_dm: true, archived: false, archived_at: null };
      this.db.channels.put(name, c);
      this.addMemberIn(name, a.id, 'member', now);
      this.addMemberIn(name, b.id, 'member', now);
      w.insert(systemNotice(name, notices.directChannelOpened(a.id, b.id), now));
      return c;
    }
    for (const peer of [a, b]) {
      if (!this.db.isMember(name, peer.id)) {
        this.addMemberIn(name, peer.id, 'member', now);
        w.insert(systemNotice(name, notices.directChannelRejoined(peer.id), now));
      }
    }
    return c;
  }

  /** `/channels`: the seat's channels plus every public channel, sorted by name; archived ones excluded. */
  rowsFor(agent: string, includeArchived = false): ChannelRow[] {
    const rows: ChannelRow[] = [];
    for (const { value: c } of this.db.channels.getRange()) {
      if (c.archived && !includeArchived) continue;
      const member = this.db.isMember(c.name, agent);
      if (!member && c.private) continue;
      const last = this.lastMessage(c.name);
      rows.push({
        name: c.name, private: c.private, created_by: c.created_by, member, member_count: this.db.membersOf(c.name).length,
        last_seq: last?.seq ?? 0, last_at: last?.created_at ?? null, archived: c.archived,
      });
    }
    return rows;
  }

  private lastMessage(channel: string) {
    for (const { value } of this.db.messages.getRange({ start: [channel, Number.MAX_SAFE_INTEGER], end: [channel, 0], reverse: true, limit: 1 })) return value;
    return undefined;
  }
}

/** The one answer for a channel a caller may not see, whether it is missing or private. */
function missingChannel(name: string) {
  return notFound(`channel '${name}' not found`);
}
