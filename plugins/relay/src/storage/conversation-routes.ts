/**
 * `/v1/conversations` (reference §1.12): create (`{metadata?, items?}`, the items become
 * `seed_items`), read, update the metadata, delete. Ids are checked before any lookup; an unknown
 * one is 404. Hosted runtime only (501 otherwise).
 */
import { defineSchema, notFound, route, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import type { TrafficSink } from '../contracts.js';
import { openExchange } from '../catalog/exchange-records.js';
import { snapshotOfJson } from '../traffic/body-snapshot.js';
import type { RelayConversations } from './conversation-store.js';
import { refuseUnlessHosted } from './hosted-only.js';
import { CONVERSATION_ID } from './storage-ids.js';

export interface ConversationRoutesOptions {
  conversations: RelayConversations;
  hostedEnabled: boolean;
  maxBodyBytes: number;
  auth: RouteAuth;
  traffic: TrafficSink;
}

const newConversation = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: {
    metadata: { type: 'object', description: 'Free-form metadata (at most conversations.maxMetadataBytes of JSON).' },
    items: { type: 'array', items: { type: 'object' }, description: 'Responses-shaped items replayed before the first turn.' },
  },
});
const metadataUpdate = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['metadata'],
  properties: { metadata: { type: 'object', description: 'The new metadata (replaces the old).' } },
});
const idParams = defineSchema({ type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string', maxLength: 256 } } });

function unknownConversation(): never {
  throw notFound('There is no local conversation with this id.', { code: 'conversation_not_found', field: 'params.id' });
}

export function conversationRoutes(options: ConversationRoutesOptions): AnyRoute[] {
  const { conversations, hostedEnabled, auth, traffic } = options;
  const tags = ['relay'];
  const what = 'Local conversations';
  const checkedId = (id: string) => (CONVERSATION_ID.test(id) ? id : unknownConversation());
  return [
    route({
      method: 'POST',
      path: '/conversations',
      summary: 'Create a local conversation (`{metadata?, items?}`)',
      tags,
      auth,
      body: newConversation,
      bodyLimitBytes: options.maxBodyBytes,
      handler: ({ body, principal, koa }) => openExchange(traffic, principal, koa, snapshotOfJson(body)).answer(async () => {
        refuseUnlessHosted(hostedEnabled, what);
        return conversations.create((body.metadata ?? {}) as Record<string, unknown>, (body.items ?? []) as unknown[]);
      }),
    }),
    route({
      method: 'GET',
      path: '/conversations/:id',
      summary: 'One local conversation',
      tags,
      auth,
      params: idParams,
      handler: ({ params, principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, what);
        return (await conversations.get(checkedId(params.id))) ?? unknownConversation();
      }),
    }),
    route({
      method: 'POST',
      path: '/conversations/:id',
      summary: 'Replace a local conversation\'s metadata',
      tags,
      auth,
      params: idParams,
      body: metadataUpdate,
      bodyLimitBytes: options.maxBodyBytes,
      handler: ({ params, body, principal, koa }) => openExchange(traffic, principal, koa, snapshotOfJson(body)).answer(async () => {
        refuseUnlessHosted(hostedEnabled, what);
        return (await conversations.updateMetadata(checkedId(params.id), body.metadata as Record<string, unknown>)) ?? unknownConversation();
      }),
    }),
    route({
      method: 'DELETE',
      path: '/conversations/:id',
      summary: 'Delete a local conversation and its stored turns',
      tags,
      auth,
      params: idParams,
      handler: ({ params, principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, what);
        const id = checkedId(params.id);
        if (!(await conversations.delete(id))) unknownConversation();
        return { id, object: 'conversation.deleted', deleted: true };
      }),
    }),
  ] as AnyRoute[];
}
