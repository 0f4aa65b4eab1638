// Answers of Keel's ledger additions: erasing a retracted message and the ledger-signing key.

const sha256Hex = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

/** `POST /channels/{c}/messages/{id}/erase`. */
export const erasureResponse = {
  type: 'object',
  required: ['channel', 'message_id', 'seq', 'erased', 'erased_at', 'erased_by', 'hash', 'content_hash', 'keel_hash', 'attachments_released', 'blobs_deleted'],
  additionalProperties: false,
  properties: {
    channel: { type: 'string' }, message_id: { type: 'string' }, seq: { type: 'integer', minimum: 1 }, erased: { const: true },
    erased_at: { type: 'number' }, erased_by: { type: 'string' }, hash: sha256Hex, content_hash: sha256Hex, keel_hash: sha256Hex,
    attachments_released: { type: 'array', items: sha256Hex }, blobs_deleted: { type: 'array', items: sha256Hex },
  },
} as const;

/** `GET /ledger/key`. */
export const ledgerKeyResponse = {
  type: 'object',
  required: ['alg', 'key_id', 'public_key'],
  additionalProperties: false,
  properties: { alg: { const: 'Ed25519' }, key_id: sha256Hex, public_key: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
} as const;
