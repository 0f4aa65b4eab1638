/** The hub plugin's config. */
import { defineSchemaFor } from '@keel/plugin-sdk';

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
  /** Bounds of the board, supervise, vfs-history and thread reads (reference §8.3, §8.5). */
  reads: ReadLimits;
  /** `GET /admin/slow`: a request whose handler took at least `thresholdMs` is kept in a ring of the last `keep`. */
  slowRequests: { thresholdMs: number; keep: number };
  /** Presence windows: how long HTTP activity (`activeSeconds`) or a reception poll (`receptionSeconds`) keeps a seat `active`. */
  presence: { activeSeconds: number; receptionSeconds: number };
  /** `GET /inbox?wait=`: parked long-polls per seat (429 beyond) and seconds between recomputations while nothing arrives. */
  inboxWait: { maxPerSeat: number; recheckSeconds: number };
  /** Semantic search (with the inference plugin): the embedding queue and batch bounds. */
  semantic: { queueCap: number; batchSize: number; maxChunksPerDoc: number; topDocs: number };
}

export interface ReadLimits {
  /** `fshist`: audit rows scanned after `since_seq` (the reference's 10 000). */
  fsHistoryScanRows: number;
  /** `fshist`: most rows one answer carries (the reference's default `limit` is 200). */
  fsHistoryMaxRows: number;
  /** `resolve_thread`: rows of a trail (the reference's 200; `truncated: true` beyond). */
  threadMaxRows: number;
  /** `/board`: rows per list (`pending_on_me`, `proposals`, `queue`, `in_progress`, `pending_review`); counts stay exact. */
  boardMaxRows: number;
  /** `/colleagues`: notes one answer carries. */
  colleagueNotesMax: number;
  /** `PUT /colleagues/{seat}`: longest note in characters (the reference's 2000). */
  colleagueNoteMaxChars: number;
  /** `supervise`: newest rows of a room scanned to find how long each seat has been quiet (older: `quiet_minutes: null`). */
  superviseScanRows: number;
}

export const hubConfigSchema = defineSchemaFor<HubConfig>()({
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
    reads: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        fsHistoryScanRows: { type: 'integer', minimum: 1, default: 10000 },
        fsHistoryMaxRows: { type: 'integer', minimum: 1, default: 1000 },
        threadMaxRows: { type: 'integer', minimum: 1, default: 200 },
        boardMaxRows: { type: 'integer', minimum: 1, default: 200 },
        colleagueNotesMax: { type: 'integer', minimum: 1, default: 1000 },
        colleagueNoteMaxChars: { type: 'integer', minimum: 1, default: 2000 },
        superviseScanRows: { type: 'integer', minimum: 1, default: 10000 },
      },
    },
    slowRequests: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { thresholdMs: { type: 'integer', minimum: 0, default: 5000 }, keep: { type: 'integer', minimum: 0, maximum: 10000, default: 50 } },
    },
    presence: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { activeSeconds: { type: 'number', minimum: 1, default: 600 }, receptionSeconds: { type: 'number', minimum: 1, default: 2700 } },
    },
    inboxWait: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { maxPerSeat: { type: 'integer', minimum: 1, default: 4 }, recheckSeconds: { type: 'number', minimum: 0.1, maximum: 55, default: 5 } },
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
