/** The hub plugin's config. */
import { schema } from '@keel/plugin-sdk';

export interface HubConfig {
  /** Largest attachment in bytes (operator-configurable; reference default 16 MiB). */
  attachmentMaxBytes: number;
  /** Attachment storage per channel in bytes (default 1 GiB). */
  channelAttachmentQuotaBytes: number;
  /** Live socket: frames queued per connection before live frames are dropped (the client's gap check recovers them). */
  socketQueueFrames: number;
  /** Live socket: deepest JSON nesting a client frame may have; deeper frames get an error frame (status 400). */
  socketFrameMaxDepth: number;
  /** Posting pace per seat (posts, direct messages, socket posts); `perMinute: 0` turns it off. */
  postRate: { perMinute: number; burst: number };
  /** Semantic search (with the inference plugin): the embedding queue and batch bounds. */
  semantic: { queueCap: number; batchSize: number; maxChunksPerDoc: number; topDocs: number };
}

export const hubConfigSchema = schema<HubConfig>({
  type: 'object',
  additionalProperties: false,
  properties: {
    attachmentMaxBytes: { type: 'integer', minimum: 1, default: 16 * 1024 * 1024 },
    channelAttachmentQuotaBytes: { type: 'integer', minimum: 1, default: 1024 * 1024 * 1024 },
    socketQueueFrames: { type: 'integer', minimum: 10, default: 1000 },
    socketFrameMaxDepth: { type: 'integer', minimum: 2, default: 64 },
    postRate: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { perMinute: { type: 'number', minimum: 0, default: 60 }, burst: { type: 'integer', minimum: 1, default: 20 } },
    },
    semantic: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        queueCap: { type: 'integer', minimum: 1, default: 10000 },
        batchSize: { type: 'integer', minimum: 1, maximum: 1000, default: 32 },
        maxChunksPerDoc: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
        topDocs: { type: 'integer', minimum: 1, maximum: 10000, default: 400 },
      },
    },
  },
});
