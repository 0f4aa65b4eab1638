// Governance: delegations, kicks and bans.

import type { WireInput } from './infer.js';

/** `PUT /admin/delegation`: `ttl_seconds` null = the hub default (7 days). */
export const grantDelegationBody = {
  type: 'object', required: ['agent_id', 'powers'],
  properties: {
    agent_id: { type: 'string', minLength: 1, maxLength: 200 }, powers: { type: 'array', items: { type: 'string' } }, ttl_seconds: { type: ['number', 'null'] },
    note: { type: 'string' }, scope: { type: 'string' },
  },
} as const;
export type GrantDelegationBody = WireInput<typeof grantDelegationBody>;

/** `POST /channels/{c}/blocks` and `POST /hub/blocks`: `seconds` omitted or null = a ban, else a timed kick. */
export const blockBody = {
  type: 'object', required: ['agent'],
  properties: { agent: { type: 'string', minLength: 1, maxLength: 200 }, seconds: { type: ['number', 'null'] }, reason: { type: 'string' } },
} as const;
export type BlockBody = WireInput<typeof blockBody>;

export const blockListQuery = { type: 'object', properties: { scope: { type: 'string', maxLength: 200 } } } as const;
