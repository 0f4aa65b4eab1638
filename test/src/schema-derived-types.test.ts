import { expect } from 'chai';
import type { ChannelRow, FsFile, Health, Message, MessageRow, RetractThreadResult, Vote } from '@keel/hub-client';
import {
  postMessageBody, type channelListResponse, type fsFileResponse, type healthResponse, type historyResponse, type messageResponse,
  type retractThreadResponse, type voteResponse, type WireValue,
} from '@keel/hub-client/wire';
import { definePlugin, defineSchema, defineSchemaFor, reply, route, type Infer, type JsonSchemaInput, type Schema } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { startHub, type HubHarness } from './helpers/hub.js';

const itemJson = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'size'],
  properties: { id: { type: 'string' }, size: { type: 'integer', minimum: 0 }, label: { type: 'string', default: 'none' } },
} as const;
const item = defineSchema(itemJson);
const itemQuery = defineSchema({ type: 'object', properties: { broken: { type: 'boolean', default: false }, as_reply: { type: 'boolean', default: false } } });

// The handler's types are derived from the schemas: what they do not check, the types do not promise.
type Item = Infer<typeof item>;
const typed: Item = { id: 'a', size: 1, label: 'x' };
// @ts-expect-error `size` is required by the schema, so the derived type requires it.
const missingSize: Item = { id: 'a', label: 'x' };
// @ts-expect-error `id` is a string in the schema.
const wrongId: Item = { id: 1, size: 1, label: 'x' };
// @ts-expect-error `label` has a default: after validation it is always there.
const noLabel: Item = { id: 'a', size: 1 };
// What a client sends may leave a defaulted property out (the kernel fills it in).
const sent: JsonSchemaInput<typeof itemJson> = { id: 'a', size: 1 };
void [typed, missingSize, wrongId, noLabel, sent];

// A schema declared for a documented interface (a plugin's config) must accept exactly that interface.
interface Documented {
  /** Kept: a required count. */
  count: number;
  /** Kept: has a default, so always there after validation. */
  mode: 'fast' | 'safe';
}
const documented: Schema<Documented> = defineSchemaFor<Documented>()({
  type: 'object', additionalProperties: false, required: ['count'],
  properties: { count: { type: 'integer' }, mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' } },
});
// @ts-expect-error the schema lets `mode` be any string, the interface does not.
const looseMode: Schema<Documented> = defineSchemaFor<Documented>()({
  type: 'object', additionalProperties: false, required: ['count'],
  properties: { count: { type: 'integer' }, mode: { type: 'string', default: 'safe' } },
});
// @ts-expect-error the schema leaves `count` optional, the interface requires it.
const optionalCount: Schema<Documented> = defineSchemaFor<Documented>()({
  type: 'object', additionalProperties: false,
  properties: { count: { type: 'integer' }, mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' } },
});
void [documented, looseMode, optionalCount];

// What the hub's response schemas guarantee fits what the client's served types promise: a field the
// client relies on but the schema does not require (so tests would not notice it missing) fails the build.
type Fits<Served, Client> = [Served] extends [Client] ? true : false;
const servedShapesFitTheClientTypes: [
  Fits<WireValue<typeof messageResponse>, Message>,
  Fits<WireValue<typeof historyResponse>, MessageRow[]>,
  Fits<WireValue<typeof retractThreadResponse>, RetractThreadResult>,
  Fits<WireValue<typeof channelListResponse>, ChannelRow[]>,
  Fits<WireValue<typeof voteResponse>, Vote>,
  Fits<WireValue<typeof fsFileResponse>, FsFile>,
  Fits<WireValue<typeof healthResponse>, Health>,
] = [true, true, true, true, true, true, true];
void servedShapesFitTheClientTypes;

/** A route that answers with what its declared response schema allows, or (`broken`) without `size`. */
const responsesPlugin = definePlugin({
  id: 'responses',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'declares response schemas',
  defaultPrefix: '/api/responses',
  setup: () => ({
    routes: [
      route({
        method: 'GET', path: '/item', auth: 'public', query: itemQuery,
        responses: { 200: { schema: item }, 201: { schema: item } },
        handler: ({ query }) => {
          const answer = query.broken ? { id: 'a' } : { id: 'a', size: 2 };
          return query.as_reply ? reply(201, answer) : answer;
        },
      }),
    ],
  }),
});

describe('schema-derived types and checked responses', function () {
  this.timeout(60_000);

  describe('declared response schemas', () => {
    let kernel: TestKernel;
    before(async () => {
      // Silent: the mismatches are logged on purpose.
      kernel = await createTestKernel({ plugins: [responsesPlugin], config: { server: { logLevel: 'silent' } } });
    });
    after(() => kernel.stop());

    it('passes an answer that matches its declared schema unchanged (no defaults filled in)', async () => {
      const res = await kernel.inject({ url: '/api/responses/item' });
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.equal({ id: 'a', size: 2 });
    });

    it('fails loudly in tests when a handler answers outside its declared schema, for a plain value and a reply', async () => {
      for (const url of ['/api/responses/item?broken=true', '/api/responses/item?broken=true&as_reply=true']) {
        const res = await kernel.inject({ url });
        expect(res.statusCode, url).to.equal(500);
        const detail = res.json<{ detail: { reason_code: string; message: string } }>().detail;
        expect(detail.reason_code).to.equal('response_schema_mismatch');
        expect(detail.message).to.contain('GET /api/responses/item').and.contain('response.size is required').and.contain('server.validateResponses');
      }
    });

    it('does not check responses when server.validateResponses is off', async () => {
      const unchecked = await createTestKernel({ plugins: [responsesPlugin], config: { server: { logLevel: 'silent', validateResponses: false } } });
      try {
        const res = await unchecked.inject({ url: '/api/responses/item?broken=true' });
        expect(res.statusCode).to.equal(200);
        expect(res.json()).to.deep.equal({ id: 'a' });
      } finally {
        await unchecked.stop();
      }
    });
  });

  describe('the hub validates with the wire schemas @keel/hub-client exports', () => {
    let hub: HubHarness;
    let ada: string;
    before(async () => {
      hub = await startHub();
      ada = await hub.seat('ada');
    });
    after(() => hub.stop());

    it('publishes the shared post schema as the body of POST /channels/{channel}/messages', async () => {
      const doc = (await hub.kernel.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>> }>();
      expect(doc.paths['/hub/channels/{channel}/messages']!.post!.requestBody.content['application/json']!.schema).to.deep.equal(postMessageBody);
    });

    it('refuses asks that are not {text, id?, to?} objects as the type promises, naming the field', async () => {
      for (const asks of [['ship?'], [{}], [{ text: 3 }], [{ text: 'ship?', id: 7 }], [{ text: 'ship?', to: 'bob' }]]) {
        const res = await hub.call('POST', '/channels/commons/messages', ada, { body: 'x', asks });
        expect(res.status, JSON.stringify(asks)).to.equal(422);
        expect(res.body.detail[0].loc.join('.'), JSON.stringify(asks)).to.match(/^body\.asks\[0\]/);
      }
      const ok = await hub.call('POST', '/channels/commons/messages', ada, { body: 'x', status: 'open', asks: [{ text: 'ship?', id: null }] });
      expect(ok.status).to.equal(200);
      expect(ok.body.data.asks[0].text).to.equal('ship?');
    });
  });
});
