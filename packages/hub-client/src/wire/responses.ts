// Shapes the hub answers with, declared as the response schemas of its routes: `/openapi.json`
// documents them, and tests (the kernel's `server.validateResponses`) fail when the hub serves
// something else. `additionalProperties` stays open: a newer hub may add fields. What they require
// covers every field the client's served types (`types/`) promise; a test checks that at compile time.

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** What a message carries of an attachment (seed §2.5). */
export const attachmentRef = {
  type: 'object',
  required: ['id', 'filename', 'content_type', 'size'],
  properties: { id: { type: 'string' }, filename: { type: 'string' }, content_type: { type: 'string' }, size: { type: 'integer', minimum: 0 } },
} as const;

const messageFields = {
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

/** A message as posted, sent or retracted (seed §2.4), without the viewer-scoped decorations of a history row. */
export const messageResponse = messageFields;

const nullableBoolean = { type: ['boolean', 'null'] } as const;

/** A history row: the message plus the viewer-scoped decorations, all served (null on a retracted row; `read` null on the viewer's own). */
export const messageRowResponse = {
  ...messageFields,
  required: [...messageFields.required, 'has_resolved_reply', 'pending_asks', 'ratings', 'read', 'closed', 'closed_by'],
  properties: {
    ...messageFields.properties,
    has_resolved_reply: nullableBoolean,
    pending_asks: { type: ['array', 'null'], items: { type: 'string' } },
    ratings: {
      type: ['object', 'null'], required: ['up', 'down', 'mine'],
      properties: { up: { type: 'integer', minimum: 0 }, down: { type: 'integer', minimum: 0 }, mine: { enum: [-1, 0, 1] } },
    },
    read: nullableBoolean,
    closed: nullableBoolean,
    closed_by: { type: ['string', 'null'] },
  },
} as const;

export const historyResponse = { type: 'array', items: messageRowResponse } as const;

/** `POST .../retract_thread`: the thread retracted in one transaction, or nothing (seed §2.11). */
export const retractThreadResponse = {
  type: 'object',
  required: ['channel', 'root', 'count', 'already_retracted', 'skipped_non_messages', 'messages'],
  properties: {
    channel: { type: 'string' }, root: { type: 'string' }, count: { type: 'integer', minimum: 0 },
    already_retracted: stringList, skipped_non_messages: stringList, messages: { type: 'array', items: messageFields },
  },
} as const;

/** `GET /channels`: a channel list row (seed §2.6). */
export const channelListResponse = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'private', 'member', 'member_count', 'last_seq', 'last_at', 'created_by', 'archived'],
    properties: {
      name: { type: 'string' }, private: { type: 'boolean' }, member: { type: 'boolean' }, member_count: { type: 'integer', minimum: 0 },
      last_seq: { type: 'integer', minimum: 0 }, last_at: { type: ['number', 'null'] }, created_by: { type: ['string', 'null'] }, archived: { type: 'boolean' },
    },
  },
} as const;

/** A reputation vote (seed §2.8). */
export const voteResponse = {
  type: 'object',
  required: ['channel', 'target', 'rater', 'axis', 'value', 'note', 'created_at', 'updated_at'],
  properties: {
    channel: { type: 'string' }, target: { type: 'string' }, rater: { type: 'string' }, axis: { type: 'string' }, value: { type: 'integer' },
    note: { type: 'string' }, created_at: { type: 'number' }, updated_at: { type: 'number' },
  },
} as const;

/** A virtual-file-system file (seed §2.7): binary files have empty `content` and their bytes in `content_b64`. */
export const fsFileResponse = {
  type: 'object',
  required: ['path', 'content', 'content_b64', 'encoding', 'mime', 'version', 'updated_at', 'updated_by', 'description', 'size_bytes'],
  properties: {
    path: { type: 'string' }, content: { type: 'string' }, content_b64: { type: ['string', 'null'] }, encoding: { enum: ['base64', null] },
    mime: { type: 'string' }, version: { type: 'integer', minimum: 1 }, updated_at: { type: 'number' }, updated_by: { type: 'string' },
    description: { type: 'string' }, size_bytes: { type: 'integer', minimum: 0 },
  },
} as const;

/** `GET /healthz` (seed §2.6). */
export const healthResponse = {
  type: 'object',
  required: ['ok', 'paused', 'protocol', 'version'],
  properties: { ok: { type: 'boolean' }, paused: { type: 'boolean' }, protocol: { type: 'string' }, version: { type: 'string' }, db: { type: 'string' } },
} as const;
