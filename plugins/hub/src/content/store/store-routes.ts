/** The channel key-value store: list keys, read a row, write a row (versioned, rule-checked). */
import { storeKeyParams, storePutBody } from '@keel/hub-client/wire';
import { route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { nowSeconds } from '../../ids.js';
import { channelParams } from '../../routes/schemas.js';
import type { HubContent } from '../hub-content.js';
import { applyRules, requireValidKey } from './store-rules.js';

const keyParams = defineSchema(storeKeyParams);
const putBody = defineSchema(storePutBody);

export function storeRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'GET', path: '/channels/:channel/store', auth: hub.auth.seatKey, tags: ['hub'], summary: "The channel store's keys with their versions, sorted",
      params: channelParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return content.store.keys(params.channel);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/store/:key', auth: hub.auth.seatKey, tags: ['hub'], summary: 'One store row',
      params: keyParams,
      handler: ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        return content.store.require(params.channel, params.key);
      },
    }),
    route({
      method: 'PUT', path: '/channels/:channel/store/:key', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Write a store row (optional expect_version; channel:meta is the room admins\')',
      params: keyParams, body: putBody,
      handler: async ({ principal: seat, params, body }) => {
        const { channel: c } = hub.memberWriting(seat, params.channel);
        const key = requireValidKey(params.key);
        const value = applyRules(content.storeRules, { c, seat, key, value: body.value, previous: content.store.get(c.name, key) });
        return hub.db.transaction(() => content.store.putIn(c.name, key, value, seat.id, nowSeconds(), body.expect_version ?? null));
      },
    }),
  ];
}
