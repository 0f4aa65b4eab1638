// Reputation votes (seed §2.8).

import type { WireInput } from './infer.js';

/** `value` is a strict integer: 1.0 or "1" is a validation error (422), like the real hub. */
export const voteBody = {
  type: 'object', required: ['axis', 'value'],
  properties: { axis: { type: 'string' }, value: { type: 'integer' }, note: { type: 'string', default: '' } },
} as const;
export type VoteBody = WireInput<typeof voteBody>;

export const axisQuery = { type: 'object', properties: { axis: { type: 'string' } } } as const;
