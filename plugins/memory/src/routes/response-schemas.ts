/**
 * The answers of the memory routes, declared as response schemas: documented in `/openapi.json`
 * and checked in tests (`server.validateResponses`). Records and triples keep their own fields.
 */
import { defineSchema } from '@keel/plugin-sdk';

const text = { type: 'string' } as const;
const count = { type: 'integer', minimum: 0 } as const;
const open = { type: 'object', additionalProperties: true } as const;

export const ownersResponse = defineSchema({
  type: 'object',
  required: ['owners'],
  properties: { owners: { type: 'array', items: { type: 'object', required: ['owner_id', 'spans', 'triples'], properties: { owner_id: text, spans: count, triples: count } } } },
});

export const pageResponse = defineSchema({
  type: 'object',
  required: ['items', 'total', 'limit', 'has_more'],
  properties: { items: { type: 'array', items: open }, total: count, limit: count, has_more: { type: 'boolean' } },
});

export const spanResponse = defineSchema({
  type: 'object',
  required: ['span_id', 'owner_id', 'record', 'content', 'tags'],
  properties: { span_id: text, owner_id: text, record: open, content: open, tags: { type: 'object', additionalProperties: text } },
});

export const deletedSpanResponse = defineSchema({ type: 'object', required: ['deleted', 'span_id'], properties: { deleted: { type: 'boolean' }, span_id: text } });
export const deletedTripleResponse = defineSchema({ type: 'object', required: ['deleted', 'triple_id'], properties: { deleted: { type: 'boolean' }, triple_id: text } });
export const deletedOwnerResponse = defineSchema({
  type: 'object',
  required: ['owner_id', 'deleted_spans', 'deleted_triples'],
  properties: { owner_id: text, deleted_spans: count, deleted_triples: count },
});
export const deletedAllResponse = defineSchema({ type: 'object', required: ['deleted_spans', 'deleted_triples'], properties: { deleted_spans: count, deleted_triples: count } });
