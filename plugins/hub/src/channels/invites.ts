/**
 * Invites to private rooms: single-use tokens `invite_<48 hex>`, optionally locked to one seat,
 * 24 h by default. Only a room admin (owner or operator) may mint one.
 */
import type { InviteToken } from '@keel/hub-client';
import { forbidden } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import { newToken, nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';

export interface InviteRecord {
  channel: string;
  agent_id: string | null;
  created_by: string;
  created_at: number;
  expires_at: number;
  used_by: string | null;
}

export class Invites {
  private readonly invites: Database<InviteRecord, string>;

  constructor(db: HubDb) {
    this.invites = db.openDB('invites');
  }

  async create(channel: ChannelRecord, by: AgentRecord, agentId: string | null, ttlSeconds = 86400): Promise<InviteToken> {
    const token = newToken('invite_');
    const now = nowSeconds();
    await this.invites.put(token, { channel: channel.name, agent_id: agentId, created_by: by.id, created_at: now, expires_at: now + ttlSeconds, used_by: null });
    return { invite_token: token, channel: channel.name, agent_id: agentId };
  }

  /** Refuses a seat that may not join `channel` with this token (public rooms need none). */
  check(channel: ChannelRecord, seat: AgentRecord, token: string | undefined): void {
    if (!channel.private || seat.operator) return;
    if (!this.valid(channel, seat, token)) throw forbidden('a valid invite token is required for this private channel');
  }

  /** Whether `token` is an unspent, unexpired invite to `channel` that `seat` may use. */
  valid(channel: ChannelRecord, seat: AgentRecord, token: string | undefined): boolean {
    const invite = token ? this.invites.get(token) : undefined;
    return !!invite && invite.channel === channel.name && invite.used_by === null && invite.expires_at > nowSeconds() && (!invite.agent_id || invite.agent_id === seat.id);
  }

  /** Inside the join's write: spends the token. */
  consumeIn(token: string | undefined, seat: AgentRecord): void {
    const invite = token ? this.invites.get(token) : undefined;
    if (invite && invite.used_by === null) this.invites.put(token!, { ...invite, used_by: seat.id });
  }
}
