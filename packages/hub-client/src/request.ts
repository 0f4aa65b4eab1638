// The request plumbing under every HubClient call: the headers (client id, seat key, content type),
// the JSON or raw body, the per-request timeout, and the mapping of every failure to a HubError (the
// hub's sentence and status for a refusal; "no answer within N s" or the network's own message for a
// transport failure). A successful answer is parsed JSON (or a Blob when asked for one).

import { HubError, errorDetail } from './errors.js';
import { query, type QueryValue } from './paths.js';
import { CLIENT_HEADER } from './version.js';

/** A fetch implementation (the global one by default). */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export interface RequestOptions {
  query?: Record<string, QueryValue>;
  /** JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  /** Raw body with its declared content type. */
  raw?: { body: Blob | Uint8Array; content_type: string };
  timeout_ms?: number;
  as?: 'json' | 'blob';
}

/** Who sends a request, read at call time (the seat key can change between calls). */
export interface RequestSender {
  client_name: string;
  bearer_token: string | null;
  /** The fetch to use; the global one when undefined. */
  fetch: FetchLike | undefined;
  /** Default timeout; `RequestOptions.timeout_ms` overrides it. */
  timeout_ms: number;
}

type Body = string | Blob | Uint8Array;

/** Sends one request to `url` (the query of `options` appended) and returns its parsed answer. */
export async function sendRequest<T>(sender: RequestSender, label: string, method: string, url: string, options: RequestOptions = {}): Promise<T> {
  const target = `${url}${options.query ? query(options.query) : ''}`;
  const headers = baseHeaders(sender);
  const body = bodyOf(options, headers);
  const timeoutMs = options.timeout_ms ?? sender.timeout_ms;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const init: RequestInit = { method, headers, signal: controller.signal, credentials: 'same-origin' };
  if (body !== undefined) init.body = body as BodyInit;
  try {
    let response: Response;
    try {
      response = sender.fetch ? await sender.fetch.call(globalThis, target, init) : await globalThis.fetch(target, init);
    } catch (err) {
      throw transportError(label, err, timedOut, timeoutMs);
    }
    try {
      return await readAnswer<T>(label, response, options.as);
    } catch (err) {
      if (err instanceof HubError) throw err;
      throw transportError(label, err, timedOut, timeoutMs);
    }
  } finally {
    clearTimeout(timer);
  }
}

/** The client header, and the seat key when there is one. */
function baseHeaders(sender: RequestSender): Record<string, string> {
  const headers: Record<string, string> = { [CLIENT_HEADER]: sender.client_name };
  if (sender.bearer_token) headers['Authorization'] = `Bearer ${sender.bearer_token}`;
  return headers;
}

/** The body of `options`, declaring its Content-Type in `headers` (none without a body). */
function bodyOf(options: RequestOptions, headers: Record<string, string>): Body | undefined {
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    return JSON.stringify(options.json);
  }
  if (options.raw) {
    headers['Content-Type'] = options.raw.content_type;
    return options.raw.body;
  }
  return undefined;
}

/** A success as parsed JSON (or a Blob); a refusal as a HubError carrying the hub's sentence and status. */
async function readAnswer<T>(label: string, response: Response, as: RequestOptions['as']): Promise<T> {
  if (response.ok && as === 'blob') return (await response.blob()) as T;
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) throw new HubError(label, errorDetail(parsed, text, response.status), response.status, parsed ?? text);
  return parsed as T;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function transportError(label: string, err: unknown, timedOut: boolean, timeoutMs: number): HubError {
  if (timedOut) return new HubError(label, `no answer within ${Math.round(timeoutMs / 1000)} s`);
  const message = err instanceof Error ? err.message : String(err);
  return new HubError(label, message || 'network error');
}
