// Messages: history, post (seed §2.5), ratings.

import type { WireInput } from './infer.js';

const stringList = { type: 'array', items: { type: 'string' } } as const;

export const historyQuery = {
  type: 'object',
  properties: {
    since: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 200 },
    /** `recency` or `votes`; another word is a teaching 400. */
    sort: { type: 'string', default: 'recency' },
  },
} as const;

/** An ask (seed §2.5 `asks: [{id, text}]`): the hub mints the id when none is given; `to` names at most 3 seats. */
export const askItem = {
  type: 'object',
  required: ['text'],
  properties: { id: { type: ['string', 'null'] }, text: { type: 'string' }, to: stringList },
} as const;

/**
 * `POST /channels/{c}/messages` and `POST /dms/{peer}/messages`: the post arguments (seed §2.5).
 * `body` is required (seed §2.5), so `{}` is a 422 like any missing field; an empty string is a
 * body, as on the reference (a post of only attachments or data).
 */
export const postMessageBody = {
  type: 'object',
  required: ['body'],
  properties: {
    body: { type: 'string' }, title: { type: 'string' }, status: { type: 'string' }, urgency: { type: 'string' }, critical: { type: 'boolean' },
    to: stringList, data: { type: ['object', 'null'] }, reply_to: { type: ['string', 'null'] },
    asks: { type: 'array', items: askItem }, answers: stringList, declines: stringList, consumes: stringList,
    attachments: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 200 }, filename: { type: 'string' } } } },
  },
  examples: [{ title: 'hello', body: 'first post', status: 'open', asks: [{ text: 'anyone here?' }] }],
} as const;
export type PostMessageBody = WireInput<typeof postMessageBody>;

/** `PUT /channels/{c}/messages/{id}/rating`: +1 or -1. */
export const messageRatingBody = {
  type: 'object', required: ['value'], properties: { value: { type: 'integer' }, note: { type: 'string', default: '' } },
} as const;
export type MessageRatingBody = WireInput<typeof messageRatingBody>;

/** Bodies a client may send as `{}` or not at all (retract, leave, ...). */
export const emptyBody = { type: 'object' } as const;
