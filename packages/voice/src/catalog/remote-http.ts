/**
 * Requests to an OpenAI-shaped remote (reference B.12): a timeout on every request, the answer read
 * with a byte cap (a remote is not trusted to send a small body), and failures turned into
 * VoiceErrors that carry the remote's own `error.message` / `error.detail`.
 */
import { VoiceError } from '../contracts.js';

/** Most bytes a discovery or clone answer may have (a model list of thousands of ids fits easily). */
export const DEFAULT_MAX_REMOTE_ANSWER_BYTES = 1024 * 1024;

export interface RemoteEndpoint {
  /** The `/v1`-style root, e.g. `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  apiKey?: string;
}

export interface RemoteRequest {
  method?: 'GET' | 'POST';
  body?: FormData | string;
  headers?: Record<string, string>;
  timeoutMs: number;
  maxBytes?: number;
  signal?: AbortSignal;
}

/** Joins a root and a path without doubling or dropping the slash. */
export function remoteUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** Calls `path` on the remote and answers its JSON body; throws a VoiceError (502) on any failure. */
export async function remoteJson(endpoint: RemoteEndpoint, path: string, request: RemoteRequest): Promise<unknown> {
  const url = remoteUrl(endpoint.baseUrl, path);
  const signals = [AbortSignal.timeout(Math.max(1, request.timeoutMs))];
  if (request.signal) signals.push(request.signal);
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  let response: Response;
  try {
    response = await fetch(url, { method: request.method ?? 'GET', headers, body: request.body, signal: AbortSignal.any(signals), redirect: 'error' });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError';
    const why = timedOut ? `no answer within ${(request.timeoutMs / 1000).toFixed(1)} s` : describeCause(err);
    throw new VoiceError(`The remote at ${url} could not be reached: ${why}.`, 502, timedOut ? 'remote_timeout' : 'remote_unreachable');
  }
  const text = await readCapped(response, request.maxBytes ?? DEFAULT_MAX_REMOTE_ANSWER_BYTES, url);
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    if (response.ok) throw new VoiceError(`The remote at ${url} answered something that is not JSON.`, 502, 'remote_bad_answer');
  }
  if (!response.ok) {
    const detail = remoteErrorMessage(body) ?? (text.slice(0, 200) || response.statusText);
    throw new VoiceError(`The remote at ${url} answered HTTP ${response.status}: ${detail}`, 502, 'remote_error');
  }
  return body;
}

/** Reads at most `maxBytes` of the body; a longer one is cut off and refused. */
async function readCapped(response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new VoiceError(`The remote at ${url} answered ${declared} bytes, more than the ${maxBytes} a voice listing may read.`, 502, 'remote_answer_too_large');
  }
  const chunks: Buffer[] = [];
  let total = 0;
  const reader = response.body?.getReader();
  if (!reader) return '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new VoiceError(`The remote at ${url} answered more than the ${maxBytes} bytes a voice listing may read.`, 502, 'remote_answer_too_large');
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof VoiceError) throw err;
    throw new VoiceError(`The remote at ${url} broke off its answer: ${describeCause(err)}.`, 502, 'remote_unreachable');
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The remote's own words: `error.message`, `error.detail`, `detail` or `message` (reference B.12). */
export function remoteErrorMessage(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const record = body as Record<string, unknown>;
  const error = record.error;
  const candidates: unknown[] = [];
  if (error && typeof error === 'object') candidates.push((error as Record<string, unknown>).message, (error as Record<string, unknown>).detail);
  candidates.push(typeof error === 'string' ? error : undefined, record.detail, record.message);
  const found = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return found === undefined ? null : found.slice(0, 500);
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message ?? String(err);
}
