/**
 * Routes to inspect and delete an account's memory (prefix `/api/gateway`, any signed-in
 * principal): always the caller's own account, so another account's span, triple or owner answers
 * 404 as an unknown one does. Errors are the gateway's `{detail: "sentence"}`.
 */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, notFound, route, type AnyRoute } from '@keel/plugin-sdk';
import type { KgStore } from '../kg-store.js';
import type { MemoryConfig } from '../memory-config.js';
import type { SpanStore } from '../span-store.js';
import { deletedAllResponse, deletedOwnerResponse, deletedSpanResponse, deletedTripleResponse, ownersResponse, pageResponse, spanResponse } from './response-schemas.js';

const id = { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } as const;
const spanParams = defineSchema({ type: 'object', required: ['span_id'], properties: { span_id: id } });
const tripleParams = defineSchema({ type: 'object', required: ['triple_id'], properties: { triple_id: id } });
const ownerParams = defineSchema({ type: 'object', required: ['owner_id'], properties: { owner_id: id } });
const spansQuery = defineSchema({ type: 'object', properties: { owner_id: id, limit: { type: 'integer', minimum: 1, maximum: 10_000_000 } } });
const kgQuery = defineSchema({
  type: 'object',
  properties: { owner_id: id, subject: { type: 'string', maxLength: 4096 }, predicate: { type: 'string', maxLength: 4096 }, object: { type: 'string', maxLength: 4096 }, limit: { type: 'integer', minimum: 1, maximum: 10_000_000 } },
});
const deleteAllQuery = defineSchema({ type: 'object', properties: { confirm: { type: 'string', maxLength: 16 } } });

export function memoryRoutes(spans: SpanStore, kg: KgStore, config: MemoryConfig): AnyRoute[] {
  const limitOf = (asked: number | undefined) => {
    if (asked !== undefined && asked > config.listMaxLimit) throw badRequest(`limit ${asked} is above the most one page may hold (${config.listMaxLimit}, the memory plugin's listMaxLimit); page with a smaller limit.`);
    return asked ?? config.listDefaultLimit;
  };
  return [
    route({
      method: 'GET',
      path: '/memory',
      summary: "The caller's memory owners (runs, session memory runs, global_memory) with how many spans and triples each holds",
      tags: ['memory'],
      responses: { 200: { schema: ownersResponse } },
      handler: async ({ principal }) => {
        const owners = new Map<string, { owner_id: string; spans: number; triples: number }>();
        for (const { owner, spans: n } of spans.owners(principal.account)) owners.set(owner, { owner_id: owner, spans: n, triples: 0 });
        for (const { owner, triples } of kg.owners(principal.account)) owners.set(owner, { ...(owners.get(owner) ?? { owner_id: owner, spans: 0 }), triples });
        return { owners: [...owners.values()] };
      },
    }),
    route({
      method: 'GET',
      path: '/memory/spans',
      summary: "The caller's spans (notes and conversation spans), newest first; `owner_id` narrows to one owner",
      tags: ['memory'],
      responses: { 200: { schema: pageResponse } },
      query: spansQuery,
      handler: async ({ query, principal }) => {
        const limit = limitOf(query.limit);
        const owners = query.owner_id ? [query.owner_id] : spans.owners(principal.account).map((o) => o.owner);
        const items = owners
          .flatMap((owner) => spans.spansOf(principal.account, owner).map((record) => ({ owner_id: owner, span_id: record.artifact_id, ...record })))
          .sort((a, b) => b.created_at.localeCompare(a.created_at));
        return { items: items.slice(0, limit), total: items.length, limit, has_more: items.length > limit };
      },
    }),
    route({
      method: 'GET',
      path: '/memory/spans/:span_id',
      summary: 'One span: its index record and its archive (the note or the archived messages) with tags',
      tags: ['memory'],
      responses: { 200: { schema: spanResponse } },
      params: spanParams,
      handler: async ({ params, principal }) => {
        const found = spans.record(principal.account, params.span_id);
        const artifact = spans.artifact(principal.account, params.span_id);
        if (!found || !artifact) throw notFound(`Memory span '${params.span_id}' not found.`);
        return { span_id: params.span_id, owner_id: found.owner, record: found.record, content: artifact.content, tags: artifact.tags };
      },
    }),
    route({
      method: 'DELETE',
      path: '/memory/spans/:span_id',
      summary: 'Deletes one span (its record and archive)',
      tags: ['memory'],
      responses: { 200: { schema: deletedSpanResponse } },
      params: spanParams,
      handler: async ({ params, principal }) => {
        if (!(await spans.delete(principal.account, params.span_id))) throw notFound(`Memory span '${params.span_id}' not found.`);
        return { deleted: true, span_id: params.span_id };
      },
    }),
    route({
      method: 'GET',
      path: '/memory/kg',
      summary: "The caller's knowledge-graph triples, newest first; narrowed by owner, subject, predicate, object",
      tags: ['memory'],
      responses: { 200: { schema: pageResponse } },
      query: kgQuery,
      handler: async ({ query, principal }) => {
        const limit = limitOf(query.limit);
        const owners = query.owner_id ? [query.owner_id] : kg.owners(principal.account).map((o) => o.owner);
        const same = (a: string, b: string | undefined) => b === undefined || a.toLowerCase() === b.trim().toLowerCase();
        const items = owners
          .flatMap((owner) => kg.newestOf(principal.account, owner, config.kgScanMax))
          .filter((t) => same(t.subject, query.subject) && same(t.predicate, query.predicate) && same(t.object, query.object))
          .sort((a, b) => b.observed_at.localeCompare(a.observed_at));
        return { items: items.slice(0, limit), total: items.length, limit, has_more: items.length > limit };
      },
    }),
    route({
      method: 'DELETE',
      path: '/memory/kg/:triple_id',
      summary: 'Deletes one triple',
      tags: ['memory'],
      responses: { 200: { schema: deletedTripleResponse } },
      params: tripleParams,
      handler: async ({ params, principal }) => {
        if (!(await kg.delete(principal.account, params.triple_id))) throw notFound(`Knowledge-graph triple '${params.triple_id}' not found.`);
        return { deleted: true, triple_id: params.triple_id };
      },
    }),
    route({
      method: 'DELETE',
      path: '/memory/owners/:owner_id',
      summary: "Deletes one owner's memory: every span and triple of a run, a session memory run or global_memory",
      tags: ['memory'],
      responses: { 200: { schema: deletedOwnerResponse } },
      params: ownerParams,
      handler: async ({ params, principal }) => {
        const deletedSpans = await spans.deleteAll(principal.account, params.owner_id);
        const deletedTriples = await kg.deleteAll(principal.account, params.owner_id);
        if (!deletedSpans && !deletedTriples) throw notFound(`No memory is held by '${params.owner_id}'.`);
        return { owner_id: params.owner_id, deleted_spans: deletedSpans, deleted_triples: deletedTriples };
      },
    }),
    route({
      method: 'DELETE',
      path: '/memory',
      summary: "Deletes all of the caller's memory (every span and triple); needs `?confirm=all`",
      tags: ['memory'],
      responses: { 200: { schema: deletedAllResponse } },
      query: deleteAllQuery,
      handler: async ({ query, principal }) => {
        if (query.confirm !== 'all') throw badRequest('Deleting all of your memory needs ?confirm=all (nothing was deleted).');
        return { deleted_spans: await spans.deleteAll(principal.account), deleted_triples: await kg.deleteAll(principal.account) };
      },
    }),
  ];
}
