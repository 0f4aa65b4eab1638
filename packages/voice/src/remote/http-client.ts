/**
 * The HTTP client of the remote engines: `node:http`/`node:https` with a keep-alive agent (no global
 * fetch on the hot path), a whole-request deadline, a cap on the answer's size (a hostile remote cannot
 * exhaust memory) and no redirects. Failures become VoiceError 502 with a sentence naming the endpoint.
 */
import http from 'node:http';
import https from 'node:https';
import { VoiceError } from '../contracts.js';

export interface RemoteCall {
  method: 'GET' | 'POST';
  /** Path under the base URL (`/audio/speech`). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Whole-request deadline. */
  timeoutMs: number;
  /** Largest answer body accepted. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface RemoteAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class RemoteHttpClient {
  readonly baseUrl: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;

  constructor(baseUrl: string, private readonly apiKey?: string) {
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new VoiceError(`The remote audio base URL is not a valid URL: ${baseUrl}`, 400, 'invalid_base_url');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new VoiceError(`The remote audio base URL must use http or https: ${baseUrl}`, 400, 'invalid_base_url');
    }
    this.baseUrl = url;
    this.transport = url.protocol === 'https:' ? https : http;
    this.agent = new this.transport.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** The full URL of a path under the base (`http://h/v1` + `/audio/speech`). */
  urlOf(path: string): URL {
    const base = this.baseUrl.href.endsWith('/') ? this.baseUrl.href : `${this.baseUrl.href}/`;
    return new URL(path.replace(/^\/+/, ''), base);
  }

  /** One request; resolves with any status (the caller judges it), rejects on network, deadline or size. */
  request(call: RemoteCall): Promise<RemoteAnswer> {
    const url = this.urlOf(call.path);
    const headers: Record<string, string> = { accept: '*/*', ...call.headers };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (call.body) headers['content-length'] = String(call.body.length);
    const where = `${url.origin}${url.pathname}`;
    return new Promise<RemoteAnswer>((resolve, reject) => {
      let settled = false;
      const finish = (error: VoiceError | undefined, answer?: RemoteAnswer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        call.signal?.removeEventListener('abort', onAbort);
        if (error) {
          req.destroy();
          reject(error);
        } else resolve(answer!);
      };
      const onAbort = (): void => finish(new VoiceError(`The request to ${where} was cancelled.`, 499, 'cancelled'));
      const timer = setTimeout(
        () => finish(new VoiceError(`The remote audio endpoint ${where} did not answer within ${call.timeoutMs / 1000} s.`, 502, 'remote_timeout')),
        call.timeoutMs,
      );
      const req = this.transport.request(url, { method: call.method, headers, agent: this.agent }, (res) => {
        const declared = Number(res.headers['content-length']);
        // Settle before destroying: destroying emits 'aborted' synchronously.
        if (Number.isFinite(declared) && declared > call.maxBytes) {
          finish(tooLarge(where, call.maxBytes));
          res.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > call.maxBytes) {
            finish(tooLarge(where, call.maxBytes));
            res.destroy();
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) }));
        res.on('error', (error) => finish(unreachable(where, error)));
        res.on('aborted', () => finish(new VoiceError(`The remote audio endpoint ${where} closed the connection mid-answer.`, 502, 'remote_unreachable')));
      });
      req.on('error', (error) => finish(unreachable(where, error)));
      if (call.signal?.aborted) {
        onAbort();
        return;
      }
      call.signal?.addEventListener('abort', onAbort, { once: true });
      req.end(call.body);
    });
  }

  /** Closes idle keep-alive sockets. */
  close(): void {
    this.agent.destroy();
  }
}

function tooLarge(where: string, maxBytes: number): VoiceError {
  return new VoiceError(`The remote audio endpoint ${where} answered more than the ${maxBytes}-byte limit.`, 502, 'remote_too_large');
}

function unreachable(where: string, error: Error & { code?: string }): VoiceError {
  return new VoiceError(`The remote audio endpoint ${where} is unreachable: ${error.code ?? error.message}`, 502, 'remote_unreachable');
}

/** VoiceError 502 carrying the remote's own message (`error.message`, `error.detail`, `detail`, ...). */
export function remoteFailure(what: string, answer: RemoteAnswer): VoiceError {
  return new VoiceError(`${what} failed (HTTP ${answer.status}): ${remoteMessage(answer.body)}`, 502, 'remote_error');
}

function remoteMessage(body: Buffer): string {
  const text = body.subarray(0, 64 * 1024).toString('utf8');
  try {
    const parsed = JSON.parse(text) as unknown;
    const found = pick(parsed, ['error', 'message']) ?? pick(parsed, ['error', 'detail']) ?? pick(parsed, ['detail']) ?? pick(parsed, ['message']) ?? pick(parsed, ['error']);
    if (found) return found;
  } catch {
    // not JSON: the text itself
  }
  const plain = printable(text);
  return plain === '' ? 'no message' : plain;
}

/** A remote's words reach our callers: one line, no control characters, at most 500 characters. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 500);
}

function pick(value: unknown, path: string[]): string | undefined {
  let current = value;
  for (const key of path) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  if (typeof current === 'string' && current.trim() !== '') return printable(current);
  if (current && typeof current === 'object' && !Array.isArray(current)) return undefined;
  return current === undefined || current === null ? undefined : JSON.stringify(current).slice(0, 500);
}

/** Parses a JSON answer body; VoiceError 502 when it is not JSON. */
export function parseJson(what: string, body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new VoiceError(`${what} answered something that is not JSON.`, 502, 'remote_bad_answer');
  }
}

/** Only a 2xx counts: redirects are not followed, so a 3xx is a failure too (never its body as audio). */
export function isSuccess(answer: RemoteAnswer): boolean {
  return answer.status >= 200 && answer.status < 300;
}
