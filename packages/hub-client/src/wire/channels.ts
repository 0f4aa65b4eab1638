// Channels and rooms: listing, creation, joining, invites, groups.

import type { WireInput } from './infer.js';

const id = { type: 'string', maxLength: 200 } as const;

export const channelListQuery = { type: 'object', properties: { include_archived: { type: 'boolean', default: false } } } as const;

export const createChannelBody = {
  type: 'object', required: ['name'], properties: { name: { type: 'string' }, private: { type: 'boolean', default: true } },
} as const;
export type CreateChannelBody = WireInput<typeof createChannelBody>;

export const joinChannelBody = { type: 'object', properties: { invite_token: id } } as const;
export type JoinChannelBody = WireInput<typeof joinChannelBody>;

/** `POST /channels/{c}/invites`: for one seat (`agent_id`) or anyone holding the token (null). */
export const createInviteBody = { type: 'object', properties: { agent_id: { type: ['string', 'null'], maxLength: 200 }, ttl_seconds: { type: 'number' } } } as const;
export type CreateInviteBody = WireInput<typeof createInviteBody>;

export const createGroupBody = {
  type: 'object', required: ['name', 'members', 'purpose'],
  properties: {
    name: id, members: { type: 'array', items: id }, purpose: { type: 'string' },
    opening_post: { type: 'string' }, private: { type: 'boolean', default: true },
  },
} as const;
export type CreateGroupBody = WireInput<typeof createGroupBody>;
