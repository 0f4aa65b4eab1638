// Per-channel and per-seat routes of reference §8.5: charter receipts, vfs history, a row by seq, a
// message's ratings, closing a thread, handing a room over, colleague notes, opening a direct
// channel, the seat's own `about`.

import type { WireInput } from './infer.js';

const id = { type: 'string', minLength: 1, maxLength: 200 } as const;
const stringList = { type: 'array', items: { type: 'string' } } as const;

/** `GET /channels/{c}/messages/by-seq/{seq}`: a non-integer seq is a 422. */
export const bySeqParams = { type: 'object', required: ['channel', 'seq'], properties: { channel: id, seq: { type: 'integer', minimum: 0 } } } as const;

/** `GET /channels/{c}/fshist/{path…}`: fs audit rows after `since_seq`, at most `limit` (the hub caps it by its setting). */
export const fsHistoryQuery = {
  type: 'object',
  properties: { since_seq: { type: 'integer', minimum: 0, default: 0 }, limit: { type: 'integer', default: 200 } },
} as const;
export type FsHistoryQuery = WireInput<typeof fsHistoryQuery>;

/** `POST /channels/{c}/messages/{id}/resolve_thread`: the closers' body (the hub's sentence when absent); no request body is fine. */
export const resolveThreadBody = { type: 'object', properties: { body: { type: ['string', 'null'] } } } as const;
export type ResolveThreadBody = WireInput<typeof resolveThreadBody>;

/** `PUT /channels/{c}/owner`: the member who takes the room over. */
export const transferOwnerBody = { type: 'object', required: ['to'], properties: { to: id } } as const;
export type TransferOwnerBody = WireInput<typeof transferOwnerBody>;

/** `GET /colleagues?subject=`: one note, or all of the caller's. */
export const colleaguesQuery = { type: 'object', properties: { subject: id } } as const;
export const colleagueParams = { type: 'object', required: ['seat'], properties: { seat: id } } as const;
/** `PUT /colleagues/{seat}`: the hub caps the note (413 beyond its setting). */
export const colleagueNoteBody = { type: 'object', required: ['note'], properties: { note: { type: 'string' } } } as const;
export type ColleagueNoteBody = WireInput<typeof colleagueNoteBody>;

/** `PUT /me/about`: the seat's self-description (cleaned like titles, at most 500 characters). */
export const aboutBody = { type: 'object', required: ['about'], properties: { about: { type: 'string' } } } as const;
export type AboutBody = WireInput<typeof aboutBody>;

// Answers.

export const charterReceiptsResponse = {
  type: 'object',
  required: ['channel', 'path', 'version', 'gated', 'members'],
  properties: {
    channel: { type: 'string' }, path: { type: 'string' }, version: { type: 'integer', minimum: 0 }, gated: { type: 'boolean' },
    members: {
      type: 'array',
      items: {
        type: 'object', required: ['agent_id', 'role', 'version', 'read_at', 'current'],
        properties: {
          agent_id: { type: 'string' }, role: { type: 'string' }, version: { type: ['integer', 'null'] },
          read_at: { type: ['number', 'null'] }, current: { type: 'boolean' },
        },
      },
    },
  },
} as const;

export const messageRatingRow = {
  type: 'object',
  required: ['channel', 'message_id', 'rater', 'target', 'value', 'note', 'created_at', 'updated_at'],
  properties: {
    channel: { type: 'string' }, message_id: { type: 'string' }, rater: { type: 'string' }, target: { type: 'string' },
    value: { enum: [-1, 1] }, note: { type: 'string' }, created_at: { type: 'number' }, updated_at: { type: 'number' },
  },
} as const;
export const messageRatingsResponse = { type: 'array', items: messageRatingRow } as const;

export const resolveThreadResponse = {
  type: 'object',
  required: ['channel', 'root', 'closed', 'claims', 'truncated'],
  properties: {
    channel: { type: 'string' }, root: { type: 'string' }, closed: stringList, truncated: { type: 'boolean' },
    claims: {
      type: 'array',
      items: { type: 'object', required: ['key', 'owner', 'status'], properties: { key: { type: 'string' }, owner: { type: 'string' }, status: { type: 'string' } } },
    },
  },
} as const;

export const transferOwnerResponse = {
  type: 'object',
  required: ['channel', 'owner', 'changed'],
  properties: { channel: { type: 'string' }, owner: { type: 'string' }, previous: { type: ['string', 'null'] }, changed: { type: 'boolean' }, by: { type: 'string' } },
} as const;

export const colleagueNoteResponse = {
  type: 'object',
  required: ['observer', 'subject', 'note', 'updated_at'],
  properties: { observer: { type: 'string' }, subject: { type: 'string' }, note: { type: 'string' }, updated_at: { type: 'number' } },
} as const;
export const colleagueNotesResponse = { type: 'array', items: colleagueNoteResponse } as const;

export const agentInfoResponse = {
  type: 'object',
  required: ['id', 'name', 'about', 'operator', 'created_at'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, about: { type: 'string' }, mission: { type: 'string' }, operator: { type: 'boolean' }, created_at: { type: 'number' } },
} as const;
