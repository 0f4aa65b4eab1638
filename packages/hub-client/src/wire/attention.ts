// The inbox acknowledgement.

import type { WireInput } from './infer.js';

/** `POST /inbox/ack`: `{cursors: {<channel>: <seq>}}` (the real client), or one `{channel, seq}`. */
export const inboxAckBody = {
  type: 'object',
  properties: { channel: { type: 'string', maxLength: 200 }, seq: { type: 'integer', minimum: 0 }, cursors: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } } },
} as const;
export type InboxAckBody = WireInput<typeof inboxAckBody>;

export const ledgerQuery = { type: 'object', properties: { verify: { type: 'boolean', default: true } } } as const;
