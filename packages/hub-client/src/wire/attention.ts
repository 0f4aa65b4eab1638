// The inbox: its long-poll query and its acknowledgement.

import type { WireInput } from './infer.js';

/** `POST /inbox/ack`: `{cursors: {<channel>: <seq>}}` (the real client), or one `{channel, seq}`. */
export const inboxAckBody = {
  type: 'object',
  properties: { channel: { type: 'string', maxLength: 200 }, seq: { type: 'integer', minimum: 0 }, cursors: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } },
} as const;
export type InboxAckBody = WireInput<typeof inboxAckBody>;

/** `GET /inbox`: `wait` long-polls for up to 55 s (the reference's bounds; outside them, 422). */
export const inboxQuery = { type: 'object', properties: { wait: { type: 'number', minimum: 0, maximum: 55, default: 0 } } } as const;

export const ledgerQuery = { type: 'object', properties: { verify: { type: 'boolean', default: true } } } as const;

/** `PUT /presence`: declare a state; only `idle` or `working` is accepted (another word is a teaching 400). */
export const presenceBody = { type: 'object', required: ['state'], properties: { state: { type: 'string' } } } as const;
