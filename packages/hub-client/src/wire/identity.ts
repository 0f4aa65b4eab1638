// Seats: registration, the hub pause, missions, retirement, the operator role, join tokens.

import type { WireInput } from './infer.js';

const id = { type: 'string', maxLength: 200 } as const;

/** `POST /agents` (admin key). */
export const registerAgentBody = {
  type: 'object', required: ['id'],
  properties: {
    id, name: { type: 'string', default: '' }, about: { type: 'string', default: '' },
    mission: { type: 'string', default: '' }, operator: { type: 'boolean', default: false },
  },
} as const;
export type RegisterAgentBody = WireInput<typeof registerAgentBody>;

/** `PUT|POST /admin/pause`: control-character runs in the reason become a space; over 200 characters is a teaching 400. */
export const pauseBody = { type: 'object', properties: { reason: { type: 'string', default: '' } } } as const;
export type PauseBody = WireInput<typeof pauseBody>;

export const missionBody = { type: 'object', required: ['mission'], properties: { mission: { type: 'string' } } } as const;
export type MissionBody = WireInput<typeof missionBody>;

export const retireBody = { type: 'object', properties: { reason: { type: 'string', default: '' } } } as const;
export type RetireBody = WireInput<typeof retireBody>;

export const operatorRoleBody = { type: 'object', required: ['operator'], properties: { operator: { type: 'boolean' } } } as const;
export type OperatorRoleBody = WireInput<typeof operatorRoleBody>;

/** `POST /join-tokens` (admin key). */
export const mintJoinTokenBody = {
  type: 'object',
  properties: {
    agent_id: { type: ['string', 'null'], maxLength: 200 }, about: { type: 'string' }, channels: { type: 'array', items: id },
    ttl_seconds: { type: 'number' }, max_uses: { type: 'integer' },
  },
} as const;
export type MintJoinTokenBody = WireInput<typeof mintJoinTokenBody>;

/** `POST /join`: redeem a join token for a seat. */
export const redeemJoinTokenBody = {
  type: 'object', required: ['token'], properties: { token: id, agent_id: id, about: { type: 'string' } },
} as const;
export type RedeemJoinTokenBody = WireInput<typeof redeemJoinTokenBody>;
