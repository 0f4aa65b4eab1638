/**
 * The contracts between the relay's parts (gate, traffic log, account pool, hosted lane, local
 * client lane, catalog, routes). Each part implements its interface in its own folder; `index.ts`
 * wires them. Types only: nothing here runs.
 */
import type { IncomingMessage } from 'node:http';

/** One traffic record (reference §5.3): `phase` names its kind; `logged_at` is added when absent. */
export interface TrafficRecord {
  phase?: string;
  request_id?: string;
  [field: string]: unknown;
}

/**
 * Where every part writes its traffic records. `write` never throws and never makes the caller wait
 * (serving never fails because of logging, reference §5.4); redaction happens inside.
 */
export interface TrafficSink {
  write(record: TrafficRecord): void;
  /** Whether per-line stream logging is on (`logging.streamLines`). */
  readonly streamLines: boolean;
}

/** An OpenAI-shaped error object as the client receives it inside `{error: ...}`. */
export interface OpenAiErrorObject {
  message: string;
  type: string | null;
  code: string | null;
  param?: string | null;
  resets_in_seconds?: number;
  [field: string]: unknown;
}

/**
 * A failure with a real HTTP status and an OpenAI-shaped error object, raised before any byte of
 * the answer went out: the route answers `status` with `{error, detail: error.message}` (reference
 * §1.2) and `headers`. Upstream failures carry the upstream's object verbatim.
 */
export class RelayFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: OpenAiErrorObject,
    readonly headers: Record<string, string> = {},
  ) {
    super(error.message);
    this.name = 'RelayFailure';
  }
}

/** The text routes the lanes serve. */
export type TextRoute = 'responses' | 'chat_completions' | 'completions';

/** What a lane needs to know about one call. */
export interface CallInfo {
  /** `req_<32 hex>`, in every traffic record of the call. */
  requestId: string;
  route: TextRoute;
  /** The id the client named (`gpt-x`, `cli:keel-tiny-chat`). */
  model: string;
  /** The id the upstream knows (the client id for hosted, the text after the prefix for cli). */
  upstreamModel: string;
  stream: boolean;
  /** Aborts when the client goes away: close the upstream at once (reference §8 item 28). */
  signal: AbortSignal;
  /** A local conversation id the request belongs to (affinity, history), if any. */
  conversationId?: string;
  /**
   * Milliseconds the lane spent waiting on its upstream (added up by the lane, read by the route for
   * `x-relay-overhead-ms`, which reports the relay's own time without it). A lane that does not add to
   * it has its whole time counted as overhead.
   */
  upstreamWaitMs?: number;
}

/**
 * A lane's answer. Errors before the answer starts are thrown as `RelayFailure`. A stream is
 * returned only after the upstream's first content event arrived (reference §2.8, "what counts as
 * the first byte"): from then on failures are written in-band by the lane's own frames.
 */
export type LaneAnswer =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'stream'; frames: AsyncIterable<string>; headers?: Record<string, string> };

/** A runtime that answers text routes: `hosted` (the upstream pool) or `cli` (the local client). */
export interface TextLane {
  /** The body has passed the common checks and the stripping of §2.2 (the route did both). */
  answer(body: Record<string, unknown>, call: CallInfo): Promise<LaneAnswer>;
}

/** Where a model id goes (reference §1.3); `RelayFailure` 422 when nowhere. */
export interface ModelRoute {
  provider: 'hosted' | 'cli';
  /** The id the upstream or the local client knows. */
  upstreamModel: string;
}

/** Resolves model ids and lists the catalog (`GET /v1/models`). */
export interface ModelCatalog {
  route(model: string, requestId: string): Promise<ModelRoute>;
}

/** One configured upstream account. */
export interface UpstreamAccount {
  /** `<email local part>-<10 hex>` or the configured slug: stable, used in logs and `?account=`. */
  readonly slug: string;
  readonly email: string | null;
  readonly baseUrl: string;
}

/**
 * The hosted account pool (reference §3). `run` picks an account, calls `attempt` on it, fails over
 * and benches on errors, retries whole passes on the 5/20/60 s schedule, and resolves with the first
 * success. `attempt` resolves at the point of no return (a JSON answer complete, or a stream's first
 * content event) and rejects with a `RelayFailure` (classified: 400 class never fails over).
 */
export interface AccountPool {
  readonly accounts: readonly UpstreamAccount[];
  run<T>(request: PoolRequest, attempt: (account: UpstreamAccount, attemptIndex: number) => Promise<T>): Promise<T>;
}

export interface PoolRequest {
  requestId: string;
  model: string;
  conversationId?: string;
  signal: AbortSignal;
}

/**
 * What the gate hands a route as its principal: the relay token's holder, from where, under which
 * relay request id (`req_<32 hex>`, in every traffic record of the request, reference §1.1).
 */
export interface RelayCaller {
  clientIp: string;
  requestId: string;
  request: IncomingMessage;
}

/** One stored local conversation (reference §1.12). */
export interface ConversationRecord {
  id: string;
  object: 'conversation';
  created_at: number;
  updated_at: number;
  latest_response_id: string | null;
  metadata: Record<string, unknown>;
  seed_items: unknown[];
}

/**
 * Local conversations, used by `/v1/conversations` (catalog part) and by the hosted lane: the
 * upstream is stateless chat, so the relay replays a conversation's items before the new input.
 */
export interface ConversationStore {
  get(id: string): Promise<ConversationRecord | null>;
  /** The Responses-shaped items to send before the new input: `seed_items` then every stored turn, oldest first (bounded by `conversations.maxItems`). */
  history(id: string): Promise<unknown[]>;
  /** Appends one turn (the input items and the output items) and sets `latest_response_id`. */
  appendTurn(id: string, input: unknown[], output: unknown[], responseId: string): Promise<void>;
}

/** Local files uploaded with `POST /v1/files`, read by the hosted lane to expand `file_id` parts. */
export interface FileStore {
  /** The file's record and bytes, or null for an unknown id. */
  read(id: string): Promise<{ filename: string; content_type: string; bytes: Buffer } | null>;
}

/**
 * Fragments of `GET /v1/relay/status` (reference §1.7) each part contributes, read per request; none
 * may wait on a subprocess or the network (cached answers only, reference §8 item 22).
 */
export interface StatusParts {
  /** `providers.hosted` (accounts with ACCOUNT_STATUS, balance, models_cache). */
  hosted?: () => Record<string, unknown>;
  /** `providers.cli`. */
  cli?: () => Record<string, unknown>;
  /** `storage` `{file_count, total_bytes, conversation_count}`. */
  storage?: () => Record<string, unknown>;
}
