/**
 * The upstream HTTP client of the hosted lane: one POST on the account's keep-alive agent
 * (`node:http`/`node:https`, never the global fetch, which caps near 5k req/s), always a stream.
 * An error status becomes a `RelayFailure` with the upstream's object verbatim; a transport failure
 * (DNS, connect, TLS, reset, no byte for `timeoutMs`) a 502 "Upstream connection failed: …". The
 * call is closed at once when `signal` aborts (the client went away) or the reader stops early.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { RelayFailure } from '../contracts.js';
import { connectionFailure, failureOfStatus } from './failure-classifier.js';
import { SseReader, type SseMessage } from './sse-messages.js';
import type { UpstreamEndpoint } from './upstream-endpoint.js';

export interface UpstreamCallOptions {
  signal: AbortSignal;
  /** Longest silence of the upstream socket (before the answer and between events). */
  timeoutMs: number;
  /** Largest single SSE event, in characters. */
  maxEventBytes: number;
  headers?: Record<string, string>;
  /** Told an error answer's status and body (kept to 64 KiB) before it becomes the failure, for the traffic log. */
  onErrorAnswer?: (status: number, body: string, contentType: string | undefined) => void;
}

/** The largest error body kept from an upstream error answer. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/**
 * An open upstream event stream: its events in order. `finish()` after the success terminal lets the
 * rest of the body drain so the socket goes back to the keep-alive agent; `close()` ends the call at
 * once (a failure, the client gone) unless it finished. Both are idempotent.
 */
export interface UpstreamStream {
  events: AsyncGenerator<SseMessage>;
  finish(): void;
  close(): void;
}

/** Parsed upstream URLs by base and path (a handful per relay): no URL parse on every call. */
const targets = new Map<string, { https: boolean; options: RequestOptions }>();
const MAX_CACHED_URLS = 256;

function targetOf(baseUrl: string, path: string): { https: boolean; options: RequestOptions } {
  const key = `${baseUrl}\n${path}`;
  let target = targets.get(key);
  if (!target) {
    const url = new URL(baseUrl.replace(/\/+$/, '') + path);
    target = { https: url.protocol === 'https:', options: urlToHttpOptions(url) };
    if (targets.size >= MAX_CACHED_URLS) targets.clear();
    targets.set(key, target);
  }
  return target;
}

/** How long a finished stream may take to end its body before its socket is dropped instead. */
const FINISH_GRACE_MS = 1000;

/**
 * POSTs `body` as JSON to `endpoint.baseUrl + path` and resolves once the answer's headers came:
 * with the event stream on 2xx, rejecting with the classified failure otherwise.
 */
export function openUpstreamStream(endpoint: UpstreamEndpoint, path: string, body: unknown, options: UpstreamCallOptions): Promise<UpstreamStream> {
  const target = targetOf(endpoint.baseUrl, path);
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  const send = target.https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    if (options.signal.aborted) return reject(connectionFailure('the client went away before the call'));
    let failure: RelayFailure | null = null;
    const req: ClientRequest = send({
      ...target.options,
      method: 'POST',
      agent: endpoint.agent,
      headers: {
        authorization: `Bearer ${endpoint.apiKey}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'content-length': String(payload.length),
        ...options.headers,
      },
    });
    const fail = (reason: RelayFailure) => {
      failure ??= reason;
      req.destroy();
    };
    const onAbort = () => fail(connectionFailure('the client went away'));
    options.signal.addEventListener('abort', onAbort, { once: true });
    const done = () => options.signal.removeEventListener('abort', onAbort);
    req.setTimeout(options.timeoutMs, () => fail(connectionFailure(`no answer within ${Math.round(options.timeoutMs / 1000)} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      done();
      reject(failure ?? connectionFailure(describe(err)));
    });
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 502;
      if (status >= 400) {
        readErrorBody(res)
          .then((text) => {
            done();
            // An upstream that echoes its key must not put it in the log or the client's answer.
            const masked = withoutKey(text, endpoint.apiKey);
            options.onErrorAnswer?.(status, masked, res.headers['content-type']);
            const retryAfter = res.headers['retry-after'];
            reject(failureOfStatus(status, masked, typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {}));
          })
          .catch((err: unknown) => {
            done();
            reject(failure ?? connectionFailure(describe(err as Error)));
          });
        return;
      }
      let finished = false;
      const close = () => {
        done();
        if (finished || res.complete) return;
        res.destroy();
        req.destroy();
      };
      const finish = () => {
        if (finished) return;
        finished = true;
        done();
        if (res.complete) return;
        const timer = setTimeout(() => req.destroy(), FINISH_GRACE_MS);
        timer.unref();
        res.once('end', () => clearTimeout(timer));
        res.once('close', () => clearTimeout(timer));
        res.resume();
      };
      resolve({ events: eventsOf(res, endpoint.apiKey, options, () => failure, close), finish, close });
    });
    req.end(payload);
  });
}

async function* eventsOf(res: IncomingMessage, apiKey: string, options: UpstreamCallOptions, failure: () => RelayFailure | null, close: () => void): AsyncGenerator<SseMessage> {
  res.setEncoding('utf8');
  try {
    // An in-stream error event may echo the key as well.
    const reader = new SseReader(options.maxEventBytes);
    const masked = (message: SseMessage) => (apiKey && message.data.includes(apiKey) ? { ...message, data: withoutKey(message.data, apiKey) } : message);
    for await (const text of res as AsyncIterable<string>) {
      for (const message of reader.feed(text)) yield masked(message);
    }
    for (const message of reader.end()) yield masked(message);
  } catch (err) {
    throw failure() ?? (isRelayFailure(err) ? err : connectionFailure(describe(err as Error)));
  } finally {
    // A reader that stops early (the client went away, a terminal was read) closes the call at once.
    close();
  }
  const late = failure();
  if (late) throw late;
}

async function readErrorBody(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    chunks.push(chunk.subarray(0, MAX_ERROR_BODY_BYTES - size));
    size += chunk.length;
    // Enough to classify: an error body without end must not hold the call (leaving the loop closes the response).
    if (size >= MAX_ERROR_BODY_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An upstream may echo the account's key in its error ("Incorrect API key provided: sk-..."): never relay it. */
function withoutKey(text: string, apiKey: string): string {
  return apiKey ? text.split(apiKey).join('[REDACTED]') : text;
}

function isRelayFailure(err: unknown): err is RelayFailure {
  return err instanceof Error && err.name === 'RelayFailure';
}

function describe(err: NodeJS.ErrnoException | Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  const message = err.message || 'the connection failed';
  return code && !message.includes(code) ? `${code} ${message}` : message;
}
