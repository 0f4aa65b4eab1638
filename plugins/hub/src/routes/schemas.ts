/** Schemas shared by the hub's route modules; the wire schemas themselves live in `@keel/hub-client/wire`. */
import {
  agentParams as agentParamsWire, channelParams as channelParamsWire, emptyBody as emptyBodyWire, healthResponse, messageParams as messageParamsWire, messageResponse,
} from '@keel/hub-client/wire';
import { defineSchema } from '@keel/plugin-sdk';

export const channelParams = defineSchema(channelParamsWire);
export const messageParams = defineSchema(messageParamsWire);
export const agentParams = defineSchema(agentParamsWire);
/** Bodies the client may send as `{}` or not at all. */
export const emptyBody = defineSchema(emptyBodyWire);
/** Routes answering one message (post, direct message, retraction): checked in tests, documented in OpenAPI. */
export const messageResponses = { 200: { schema: defineSchema(messageResponse) } };
export const healthResponses = { 200: { schema: defineSchema(healthResponse) } };
