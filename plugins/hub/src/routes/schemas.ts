/** Schemas shared by the hub's route modules; the wire schemas themselves live in `@keel/hub-client/wire`. */
import {
  agentParams as agentParamsWire, channelListResponse, channelParams as channelParamsWire, emptyBody as emptyBodyWire, fsFileResponse, healthResponse,
  historyResponse, messageParams as messageParamsWire, messageResponse, retractThreadResponse, voteResponse,
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
export const historyResponses = { 200: { schema: defineSchema(historyResponse) } };
export const retractThreadResponses = { 200: { schema: defineSchema(retractThreadResponse) } };
export const channelListResponses = { 200: { schema: defineSchema(channelListResponse) } };
export const voteResponses = { 200: { schema: defineSchema(voteResponse) } };
export const fsFileResponses = { 200: { schema: defineSchema(fsFileResponse) } };
