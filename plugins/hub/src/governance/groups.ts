/**
 * `POST /groups`: a room with a purpose and its first members in one call. The room and its
 * `channel:meta.purpose` are written together; then each member gets a single-use invite locked to
 * it, delivered as an `fyi` direct message titled `invite to <name>` (a member that cannot be
 * invited lands in `failed`, the others go on); last, the creator's `open` opening post.
 */
import type { CreateGroupArgs, CreateGroupResult } from '@keel/hub-client';
import { badRequest, isHttpError, notFound } from '@keel/plugin-sdk';
import { channelView } from '../channels/channel-directory.js';
import { META_KEY, validateMeta } from '../content/store/channel-meta.js';
import type { ChannelStore } from '../content/store/channel-store.js';
import type { Hub } from '../hub.js';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord } from '../records.js';
import * as notices from '../notices.js';

const MAX_MEMBERS = 100;

export class Groups {
  constructor(private readonly hub: Hub, private readonly store: ChannelStore) {}

  async create(seat: AgentRecord, input: CreateGroupArgs): Promise<CreateGroupResult> {
    const members = [...new Set(input.members)].filter((m) => m !== seat.id);
    if (members.length > MAX_MEMBERS) throw badRequest(`a group starts with at most ${MAX_MEMBERS} invited members — invite the rest afterwards`);
    const meta = validateMeta({ purpose: input.purpose }, undefined);
    const c = await this.hub.writer.run((w) => {
      const created = this.hub.channels.createIn(w, seat.id, input.name, input.private ?? true);
      this.store.putIn(created.name, META_KEY, meta, seat.id, nowSeconds(), null);
      return created;
    });
    const invited: string[] = [];
    const failed: CreateGroupResult['failed'] = [];
    for (const member of members) {
      try {
        await this.inviteByDm(c, seat, member, meta.purpose ?? '');
        invited.push(member);
      } catch (err) {
        if (!isHttpError(err)) throw err;
        failed.push({ agent: member, error: err.message });
      }
    }
    const opening = input.opening_post?.trim() ? input.opening_post : meta.purpose;
    const post = opening ? await this.hub.poster.post(c, seat, { status: 'open', title: c.name, body: opening }) : null;
    return { channel: c.name, created: channelView(c), invited, failed, opening_seq: post?.seq ?? null };
  }

  private async inviteByDm(c: ChannelRecord, seat: AgentRecord, member: string, purpose: string): Promise<void> {
    const peer = this.hub.agents.live(member);
    if (!peer) throw notFound(`agent '${member}' is not registered`);
    if (peer.retired_at !== null) throw notFound(`agent '${member}' has been retired`);
    const invite = await this.hub.invites.create(c, seat, peer.id);
    const body = notices.groupInvite(c.name, purpose, invite.invite_token);
    await this.hub.writer.run((w) => {
      const dm = this.hub.channels.ensureDmIn(w, seat, peer);
      for (const gate of this.hub.poster.gates) gate(dm, seat);
      this.hub.poster.postIn(w, dm, seat, { status: 'fyi', title: notices.groupInviteTitle(c.name), body, to: [peer.id], data: { invite_token: invite.invite_token, channel: c.name } });
    });
  }
}
