// Shapes the hub answers with, declared as the response schemas of its routes: `/openapi.json`
// documents them, and tests (the kernel's `server.validateResponses`) fail when the hub serves
// something else. `additionalProperties` stays open: a newer hub may add fields.

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** What a message carries of an attachment (seed §2.5). */
export const attachmentRef = {
  type: 'object',
  required: ['id', 'filename', 'content_type', 'size'],
  properties: { id: { type: 'string' }, filename: { type: 'string' }, content_type: { type: 'string' }, size: { type: 'integer', minimum: 0 } },
} as const;

/** A message as posted, sent or retracted (seed §2.4), without the viewer-scoped decorations of a history row. */
export const messageResponse = {
  type: 'object',
  required: ['id', 'channel', 'seq', 'sender', 'kind', 'status', 'urgency', 'critical', 'downgraded', 'to', 'title', 'body', 'data', 'attachments', 'reply_to', 'created_at', 'retracted', 'retracted_at'],
  properties: {
    id: { type: 'string' }, channel: { type: 'string' }, seq: { type: 'integer', minimum: 1 }, sender: { type: 'string' },
    kind: { type: 'string' }, status: { type: 'string' }, urgency: { type: 'string' }, critical: { type: 'boolean' }, downgraded: { type: 'boolean' },
    to: stringList, title: { type: 'string' }, body: { type: 'string' }, data: { type: ['object', 'null'] },
    attachments: { type: 'array', items: attachmentRef }, reply_to: { type: ['string', 'null'] }, created_at: { type: 'number' },
    retracted: { type: 'boolean' }, retracted_at: { type: ['number', 'null'] },
  },
} as const;

/** `GET /healthz` (seed §2.6). */
export const healthResponse = {
  type: 'object',
  required: ['ok', 'paused', 'protocol', 'version'],
  properties: { ok: { type: 'boolean' }, paused: { type: 'boolean' }, protocol: { type: 'string' }, version: { type: 'string' }, db: { type: 'string' } },
} as const;
