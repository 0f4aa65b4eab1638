/**
 * The hosted lane: answers the three text routes through the upstream account pool, always
 * streaming upstream (the chat-completions protocol, README "Upstream protocol"). Chat goes to the
 * upstream's chat, completions to its completions, Responses are translated to chat and rebuilt.
 *
 * First byte (reference §2.8): inside `pool.run`'s attempt the upstream stream is read until its
 * first content event (role-only and usage chunks are buffered), so a failure before it (an HTTP
 * error, a failure event, an empty or cut stream) is a `RelayFailure` the pool fails over and
 * retries. A non-stream answer is read whole inside the attempt and needs a success terminal (a
 * finish then `[DONE]`): never an empty 200. Once a stream started, failures go in-band.
 */
import { performance } from 'node:perf_hooks';
import { notFound } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';
import {
  RelayFailure,
  type AccountPool,
  type CallInfo,
  type ConversationStore,
  type FileStore,
  type LaneAnswer,
  type OpenAiErrorObject,
  type TextLane,
  type TrafficSink,
  type UpstreamAccount,
} from '../contracts.js';
import { snapshotOfBytes } from '../traffic/body-snapshot.js';
import { failureOfEvent, incompleteStream } from '../upstream/failure-classifier.js';
import { openUpstreamStream } from '../upstream/upstream-client.js';
import type { EndpointSource } from '../upstream/upstream-endpoint.js';
import type { SseMessage } from '../upstream/sse-messages.js';
import { AnswerAccumulator, chatUsage } from './answer-accumulator.js';
import { upstreamChatBody } from './chat-request.js';
import { upstreamCompletionsBody } from './completions-request.js';
import { newResponseId, outputItemsOf, responseEchoOf, responseObject, ResponsesEventWriter } from './responses-output.js';
import { inputItemsOf, upstreamChatOfResponses } from './responses-request.js';
import { isContent, upstreamItems, type UpstreamItem, type UpstreamUsage } from './upstream-chunks.js';

/** Role-only chunks are held until the first content (reference §2.8); an upstream sending only those must not grow memory. */
const MAX_CHUNKS_BEFORE_CONTENT = 1000;

export interface HostedLaneDeps {
  pool: AccountPool;
  /** Each account's endpoint (`pool.upstreamOf`). */
  endpoints: EndpointSource;
  traffic: TrafficSink;
  settings: Pick<RelayConfig['hosted'], 'requestTimeoutSeconds' | 'maxEventBytes' | 'maxAnswerChars'>;
  conversations?: ConversationStore;
  files?: FileStore;
  /** Wall clock in ms (`created` fields). */
  now(): number;
}

/** An upstream stream past its first content event, on the account that served it. */
interface StartedStream {
  account: UpstreamAccount;
  head: Array<Extract<UpstreamItem, { kind: 'chunk' }>>;
  items: AsyncGenerator<UpstreamItem>;
  /** After the success terminal: the socket goes back to the account's keep-alive agent. */
  finish(): void;
  close(): void;
}

/** A whole upstream answer, read to its success terminal. */
interface Collected {
  account: UpstreamAccount;
  answer: AnswerAccumulator;
}

/** The pool's window tally of the tokens used through the relay, when the pool offers one. */
interface TallyingPool {
  tally?(slug: string, model: string, usage: unknown): void;
}

const DONE_FRAME = 'data: [DONE]\n\n';
/** Event data that is one line: it can be framed as one `data:` line as it is. */
const SINGLE_LINE = /^[^\r\n]*$/;

export class HostedLane implements TextLane {
  constructor(private readonly deps: HostedLaneDeps) {}

  async answer(body: Record<string, unknown>, call: CallInfo): Promise<LaneAnswer> {
    if (call.route === 'chat_completions') return this.chatLike('/chat/completions', await upstreamChatBody(body, call.upstreamModel, this.deps.files), body, call, 'chat.completion');
    if (call.route === 'completions') return this.chatLike('/completions', upstreamCompletionsBody(body, call.upstreamModel), body, call, 'text_completion');
    return this.responses(body, call);
  }

  private async chatLike(path: string, upstreamBody: Record<string, unknown>, body: Record<string, unknown>, call: CallInfo, object: 'chat.completion' | 'text_completion'): Promise<LaneAnswer> {
    if (!call.stream) {
      const { answer } = await this.deps.pool.run(this.poolRequest(call), (account) => this.collect(account, path, upstreamBody, call));
      return { kind: 'json', status: 200, body: object === 'chat.completion' ? this.chatCompletion(answer, call) : this.textCompletion(answer, call) };
    }
    const includeUsage = (body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage === true;
    const started = await this.deps.pool.run(this.poolRequest(call), (account) => this.start(account, path, upstreamBody, call));
    return { kind: 'stream', frames: closing(this.chunkFrames(started, call, includeUsage), started) };
  }

  private async responses(body: Record<string, unknown>, call: CallInfo): Promise<LaneAnswer> {
    const input = inputItemsOf(body.input);
    let history: unknown[] = [];
    if (call.conversationId) {
      const store = this.deps.conversations;
      const conversation = store ? await store.get(call.conversationId) : null;
      if (!store || !conversation) throw notFound(`Unknown conversation id \`${call.conversationId}\`.`, { code: 'unknown_conversation', field: 'conversation' });
      history = await store.history(call.conversationId);
    }
    const items = [...(history as Array<Record<string, unknown>>), ...input];
    const upstreamBody = await upstreamChatOfResponses(body, items, call.upstreamModel, this.deps.files);
    const echo = responseEchoOf(body, call.conversationId);
    const id = newResponseId();
    const createdAt = Math.floor(this.deps.now() / 1000);
    if (!call.stream) {
      const { answer } = await this.deps.pool.run(this.poolRequest(call), (account) => this.collect(account, '/chat/completions', upstreamBody, call, id));
      const output = outputItemsOf(answer);
      if (call.conversationId) await this.deps.conversations!.appendTurn(call.conversationId, input, output, id);
      return { kind: 'json', status: 200, body: responseObject(id, createdAt, echo, answer, output) };
    }
    const started = await this.deps.pool.run(this.poolRequest(call), (account) => this.start(account, '/chat/completions', upstreamBody, call));
    const writer = new ResponsesEventWriter(id, createdAt, echo, new AnswerAccumulator(this.deps.settings.maxAnswerChars));
    return { kind: 'stream', frames: closing(this.responseFrames(started, call, writer, input), started) };
  }

  private poolRequest(call: CallInfo) {
    return { requestId: call.requestId, model: call.upstreamModel, signal: call.signal, ...(call.conversationId ? { conversationId: call.conversationId } : {}) };
  }

  /** Opens the upstream stream on `account` and reads it to its first content event. */
  private async start(account: UpstreamAccount, path: string, body: Record<string, unknown>, call: CallInfo): Promise<StartedStream> {
    const endpoint = this.deps.endpoints.upstreamOf(account);
    const url = endpoint.baseUrl + path;
    this.deps.traffic.write({ phase: 'upstream_request', request_id: call.requestId, method: 'POST', url, account: account.slug, session_id: call.conversationId ?? null, body });
    const began = performance.now();
    try {
      const stream = await openUpstreamStream(endpoint, path, body, {
        signal: call.signal,
        timeoutMs: this.deps.settings.requestTimeoutSeconds * 1000,
        maxEventBytes: this.deps.settings.maxEventBytes,
        ...(call.conversationId ? { headers: { session_id: call.conversationId } } : {}),
        onErrorAnswer: (status, text, contentType) => this.deps.traffic.write({
          phase: 'upstream_response_error', request_id: call.requestId, method: 'POST', url, account: account.slug, status_code: status, body: snapshotOfBytes(Buffer.from(text, 'utf8'), contentType),
        }),
      });
      const items = upstreamItems(this.deps.traffic.streamLines ? loggedLines(stream.events, this.deps.traffic, call.requestId) : stream.events);
      const head: Array<Extract<UpstreamItem, { kind: 'chunk' }>> = [];
      try {
        for (;;) {
          const next = await items.next();
          const item = next.done ? null : next.value;
          if (item === null || item.kind === 'done') {
            throw head.length ? incompleteStream() : new RelayFailure(502, { message: 'Upstream stream ended without a response payload.', type: 'upstream_error', code: 'empty_stream' });
          }
          if (item.kind === 'failure') throw this.streamFailure(item, call);
          head.push(item);
          if (head.length > MAX_CHUNKS_BEFORE_CONTENT) {
            throw new RelayFailure(502, { message: `The upstream sent ${MAX_CHUNKS_BEFORE_CONTENT} events without any content.`, type: 'upstream_error', code: 'upstream_no_content' });
          }
          if (isContent(item.chunk)) return { account, head, items, finish: () => stream.finish(), close: () => stream.close() };
        }
      } catch (err) {
        stream.close();
        throw err;
      }
    } finally {
      call.upstreamWaitMs = (call.upstreamWaitMs ?? 0) + (performance.now() - began);
    }
  }

  /** Reads a whole upstream answer inside the attempt: a success terminal or a classified failure. */
  private async collect(account: UpstreamAccount, path: string, body: Record<string, unknown>, call: CallInfo, responseId?: string): Promise<Collected> {
    const started = await this.start(account, path, body, call);
    const began = performance.now();
    const answer = new AnswerAccumulator(this.deps.settings.maxAnswerChars);
    try {
      for (const item of started.head) answer.add(item.chunk);
      for (;;) {
        const next = await started.items.next();
        if (next.done) throw incompleteStream();
        const item = next.value;
        if (item.kind === 'failure') throw this.streamFailure(item, call);
        if (item.kind === 'done') {
          if (answer.finish === null) throw incompleteStream();
          started.finish();
          this.succeeded(account, answer, call, responseId);
          return { account, answer };
        }
        answer.add(item.chunk);
      }
    } finally {
      started.close();
      call.upstreamWaitMs = (call.upstreamWaitMs ?? 0) + (performance.now() - began);
    }
  }

  /** Chat and completions chunks to the client, in order; the end is `[DONE]` only after a success terminal. */
  private async *chunkFrames(started: StartedStream, call: CallInfo, includeUsage: boolean): AsyncGenerator<string> {
    const answer = new AnswerAccumulator(this.deps.settings.maxAnswerChars);
    const frameOf = ({ chunk, data }: Extract<UpstreamItem, { kind: 'chunk' }>): string | null => {
      answer.add(chunk);
      // Nothing to change (no usage to fill in or leave out): the upstream's own JSON text goes on as
      // it came, unless it spans lines (a multi-line `data:` event is one compact line here).
      if (!chunk.usage) return SINGLE_LINE.test(data) ? `data: ${data}\n\n` : `data: ${JSON.stringify(chunk)}\n\n`;
      const usageOnly = (chunk.choices ?? []).length === 0;
      if (usageOnly) return includeUsage ? `data: ${JSON.stringify({ ...chunk, usage: chatUsage(chunk.usage) })}\n\n` : null;
      if (!includeUsage) {
        const { usage: _usage, ...rest } = chunk;
        return `data: ${JSON.stringify(rest)}\n\n`;
      }
      return `data: ${JSON.stringify(chunk)}\n\n`;
    };
    try {
      for (const item of started.head) {
        const frame = frameOf(item);
        if (frame) yield frame;
      }
      for (;;) {
        const next = await started.items.next();
        if (next.done) break;
        const item = next.value;
        if (item.kind === 'failure') {
          yield inBandError(this.streamFailure(item, call).error);
          return;
        }
        if (item.kind === 'done') {
          if (answer.finish === null) break;
          started.finish();
          this.succeeded(started.account, answer, call);
          yield DONE_FRAME;
          return;
        }
        const frame = frameOf(item);
        if (frame) yield frame;
      }
      yield inBandError(incompleteStream().error);
    } catch (err) {
      if (!call.signal.aborted) yield inBandError(errorOf(err));
    } finally {
      started.close();
    }
  }

  private async *responseFrames(started: StartedStream, call: CallInfo, writer: ResponsesEventWriter, input: unknown[]): AsyncGenerator<string> {
    const answer = writer.answer;
    try {
      yield* writer.start();
      for (const item of started.head) yield* writer.chunk(item.chunk);
      for (;;) {
        const next = await started.items.next();
        if (next.done) break;
        const item = next.value;
        if (item.kind === 'failure') {
          yield* writer.failed(this.streamFailure(item, call).error);
          return;
        }
        if (item.kind === 'done') {
          if (answer.finish === null) break;
          started.finish();
          this.succeeded(started.account, answer, call, writer.id);
          const frames = writer.completed();
          if (call.conversationId) await this.deps.conversations?.appendTurn(call.conversationId, input, writer.outputItems, writer.id);
          yield* frames;
          return;
        }
        yield* writer.chunk(item.chunk);
      }
      yield* writer.failed(incompleteStream().error);
    } catch (err) {
      if (!call.signal.aborted) yield* writer.failed(errorOf(err));
    } finally {
      started.close();
    }
  }

  /** A failure event: recorded (`upstream_stream_error`) and classified (§2.9). */
  private streamFailure(item: Extract<UpstreamItem, { kind: 'failure' }>, call: CallInfo): RelayFailure {
    const failure = failureOfEvent(item.error);
    this.deps.traffic.write({ phase: 'upstream_stream_error', request_id: call.requestId, event: item.event, response_id: null, model: call.upstreamModel, status: failure.status, error: item.error });
    return failure;
  }

  /** A success terminal: the usage records and the pool's window tally. */
  private succeeded(account: UpstreamAccount, answer: AnswerAccumulator, call: CallInfo, responseId?: string): void {
    const usage: UpstreamUsage | null = answer.usage;
    const status = answer.finish === 'length' || answer.finish === 'content_filter' ? 'incomplete' : 'completed';
    this.deps.traffic.write({ phase: 'upstream_usage', request_id: call.requestId, response_id: answer.id, model: answer.model ?? call.upstreamModel, status, usage, account: account.slug });
    this.deps.traffic.write({ phase: 'outbound_usage', request_id: call.requestId, response_id: responseId ?? answer.id, model: call.model, usage: chatUsage(usage) ?? null, provider: 'hosted' });
    const pool = this.deps.pool as AccountPool & TallyingPool;
    if (usage && typeof pool.tally === 'function') pool.tally(account.slug, call.upstreamModel, usage);
  }

  private chatCompletion(answer: AnswerAccumulator, call: CallInfo): Record<string, unknown> {
    const toolCalls = answer.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
    const message: Record<string, unknown> = { role: 'assistant', content: answer.text === '' && (toolCalls.length || answer.refusal !== null) ? null : answer.text, refusal: answer.refusal };
    if (toolCalls.length) message.tool_calls = toolCalls;
    return {
      id: answer.id ?? `chatcmpl_${call.requestId.slice(4)}`,
      object: 'chat.completion',
      created: answer.created ?? Math.floor(this.deps.now() / 1000),
      model: answer.model ?? call.model,
      ...(answer.systemFingerprint ? { system_fingerprint: answer.systemFingerprint } : {}),
      choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finish }],
      ...(answer.usage ? { usage: chatUsage(answer.usage) } : {}),
    };
  }

  private textCompletion(answer: AnswerAccumulator, call: CallInfo): Record<string, unknown> {
    return {
      id: answer.id ?? `cmpl_${call.requestId.slice(4)}`,
      object: 'text_completion',
      created: answer.created ?? Math.floor(this.deps.now() / 1000),
      model: answer.model ?? call.model,
      choices: [{ text: answer.text, index: 0, logprobs: null, finish_reason: answer.finish }],
      ...(answer.usage ? { usage: chatUsage(answer.usage) } : {}),
    };
  }
}

/** The chat/completions in-band error event (reference §2.8): `type` and `code` carry the same value. */
export function inBandError(error: OpenAiErrorObject): string {
  const code = error.code ?? error.type ?? 'upstream_error';
  return `data: ${JSON.stringify({ error: { message: error.message || 'The upstream response failed.', type: code, param: null, code } })}\n\n`;
}

/**
 * The frames with a `return()` that closes the upstream even when no frame was asked for yet (a
 * generator that never started skips its own `finally`).
 */
function closing(frames: AsyncGenerator<string>, started: StartedStream): AsyncIterable<string> {
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => frames.next(),
      return: async () => {
        started.close();
        return frames.return(undefined);
      },
    }),
  };
}

function errorOf(err: unknown): OpenAiErrorObject {
  if (err instanceof RelayFailure) return err.error;
  return { message: 'The upstream response failed.', type: 'upstream_error', code: 'upstream_error' };
}

/** The upstream's events, each also written as an `upstream_stream_line` record (opt-in `logging.streamLines`). */
async function* loggedLines(events: AsyncGenerator<SseMessage>, traffic: TrafficSink, requestId: string): AsyncGenerator<SseMessage> {
  for await (const message of events) {
    traffic.write({ phase: 'upstream_stream_line', request_id: requestId, line: `${message.event ? `event: ${message.event}\n` : ''}data: ${message.data}` });
    yield message;
  }
}
