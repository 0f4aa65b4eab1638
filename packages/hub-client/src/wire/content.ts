// Channel content: the virtual file system (seed §2.7), the key-value store, the work board, the
// hub charter and attachments.

import type { WireInput } from './infer.js';

export const fsListQuery = { type: 'object', properties: { prefix: { type: 'string', default: '' } } } as const;
export const fsReadQuery = { type: 'object', properties: { version: { type: 'integer', minimum: 1 } } } as const;
export const fsDeleteQuery = { type: 'object', properties: { expect_version: { type: 'integer', minimum: 0 } } } as const;

/** `PUT /channels/{c}/fs/{path}`: exactly one of `content` (text) or `content_b64` (the hub refuses both or neither). */
export const fsPutBody = {
  type: 'object',
  properties: {
    content: { type: 'string' }, content_b64: { type: 'string' }, description: { type: 'string' }, mime: { type: 'string' },
    expect_version: { type: ['integer', 'null'], minimum: 0 },
  },
} as const;
export type FsPutBody = WireInput<typeof fsPutBody>;

/** `PUT /channels/{c}/store/{key}`: `expect_version` 0 = must not exist yet. */
export const storePutBody = {
  type: 'object', required: ['value'], properties: { value: {}, expect_version: { type: ['integer', 'null'], minimum: 0 } },
} as const;
export type StorePutBody = WireInput<typeof storePutBody>;

/** `POST /channels/{c}/ruling-acks`: the standing rulings acknowledged at their current version. */
export const rulingAckBody = { type: 'object', required: ['keys'], properties: { keys: { type: 'array', minItems: 1, items: { type: 'string' } } } } as const;
export type RulingAckBody = WireInput<typeof rulingAckBody>;

export const charterReadQuery = { type: 'object', properties: { full: { type: 'boolean', default: false } } } as const;
export const charterReplaceBody = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } as const;
export type CharterReplaceBody = WireInput<typeof charterReplaceBody>;

/** `POST /channels/{c}/attachments?filename=`: the body is the raw bytes. */
export const attachmentUploadQuery = { type: 'object', properties: { filename: { type: 'string' } } } as const;
