/** Verifiable erasure of a retracted message's bytes (operator seat or the admin key). */
import { erasureResponse } from '@keel/hub-client/wire';
import { defineSchema, route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import type { Erasure } from '../messages/erasure.js';
import { operatorAct } from './operator-act.js';
import { emptyBody, messageParams } from './schemas.js';

const erasureResponses = { 200: { schema: defineSchema(erasureResponse) } };

export function erasureRoutes(hub: Hub, erasure: Erasure) {
  return [
    route({
      method: 'POST', path: '/channels/:channel/messages/:id/erase', auth: hub.auth.seatOrAdminKey, tags: ['hub'],
      summary: "Erase a retracted message's bytes for good (operators; idempotent); its ledger row stays verifiable",
      params: messageParams, body: emptyBody, bodyKind: 'json', responses: erasureResponses,
      handler: operatorAct('erasing a message is an operator act — ask an operator, or retract it (the tombstone hides it everywhere)', (actor, { params }) =>
        erasure.erase(params.channel, params.id, actor.id)),
    }),
  ];
}
