/**
 * The answers of the artifact routes, declared as response schemas: documented in `/openapi.json`
 * and checked in tests (`server.validateResponses`).
 */
import { defineSchema } from '@keel/plugin-sdk';

const text = { type: 'string' } as const;
const textOrNull = { type: ['string', 'null'] } as const;

/** The artifact reference (seed §2.6, reference §2.2). */
export const referenceSchema = {
  type: 'object',
  required: ['$artifact', 'artifact_id', 'run_id', 'content_type', 'filename', 'sha256', 'target'],
  properties: {
    $artifact: text, artifact_id: text, run_id: textOrNull, content_type: text, filename: text,
    modality: textOrNull, source_path: text, sha256: text, target: { type: 'string', enum: ['client', 'server'] },
  },
} as const;

/** A record's metadata as lists and answers show it. */
export const metadataSchema = {
  type: 'object',
  required: ['artifact_id', 'run_id', 'session_id', 'sha256', 'size_bytes', 'content_type', 'filename', 'origin', 'tags', 'created_at'],
  properties: {
    artifact_id: text, run_id: textOrNull, producing_run_id: textOrNull, session_id: textOrNull, sha256: text,
    size_bytes: { type: 'integer', minimum: 0 }, content_type: text, filename: text, path: textOrNull, source_path: textOrNull,
    origin: { type: 'string', enum: ['upload', 'run_output', 'import'] }, tags: { type: 'object', additionalProperties: text },
    node_id: textOrNull, ledger_cursor: { type: ['integer', 'null'] }, created_at: text,
  },
} as const;

export const uploadResponse = defineSchema({
  type: 'object',
  required: ['ok', 'run_id', 'artifact', 'metadata', 'attachment'],
  properties: { ok: { type: 'boolean' }, run_id: textOrNull, artifact: referenceSchema, metadata: metadataSchema, attachment: referenceSchema },
});

export const importResponse = defineSchema({
  type: 'object',
  required: ['ok', 'run_id', 'artifact', 'metadata'],
  properties: { ok: { type: 'boolean' }, run_id: textOrNull, artifact: referenceSchema, metadata: metadataSchema },
});

export const exportResponse = defineSchema({
  type: 'object',
  required: ['ok', 'artifact_id', 'run_id', 'path', 'bytes_written', 'content_type', 'sha256'],
  properties: { ok: { type: 'boolean' }, artifact_id: text, run_id: textOrNull, path: text, bytes_written: { type: 'integer', minimum: 0 }, content_type: text, sha256: text },
});

export const rowSchema = { ...metadataSchema, required: [...metadataSchema.required, 'ref'], properties: { ...metadataSchema.properties, ref: referenceSchema } } as const;

export const pageResponse = defineSchema({
  type: 'object',
  required: ['items', 'total', 'offset', 'limit', 'has_more'],
  properties: {
    items: { type: 'array', items: rowSchema },
    total: { type: 'integer', minimum: 0 }, offset: { type: 'integer', minimum: 0 }, limit: { type: 'integer', minimum: 1 },
    has_more: { type: 'boolean' }, cursor: textOrNull, next_cursor: textOrNull,
    facets: { type: 'object' }, stats: { type: 'object' }, warnings: { type: 'array', items: text },
  },
});
