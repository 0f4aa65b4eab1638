/**
 * The one failure classifier of every lane (reference §2.9): an upstream error object is a quota
 * failure (429: bench, fail over, retry), a client failure (400: answered at once, exactly one
 * upstream call, never failed over or retried) or anything else (502: fail over, retry). The object
 * itself is kept verbatim; only the status is decided here.
 */
import { RelayFailure, type OpenAiErrorObject } from '../contracts.js';

const QUOTA_CODES = new Set(['usage_limit_reached', 'rate_limit_reached', 'rate_limit_exceeded', 'insufficient_quota']);
const CLIENT_CODES = new Set(['context_length_exceeded', 'invalid_prompt', 'invalid_value', 'unsupported_value', 'unsupported_parameter', 'unknown_parameter', 'string_above_max_length']);

export type FailureClass = 'quota' | 'client' | 'other';

export function classOfError(error: Partial<OpenAiErrorObject>): FailureClass {
  const code = typeof error.code === 'string' ? error.code : null;
  const type = typeof error.type === 'string' ? error.type : null;
  if ((code && QUOTA_CODES.has(code)) || (type && QUOTA_CODES.has(type))) return 'quota';
  if (type === 'invalid_request_error' || (code && CLIENT_CODES.has(code)) || (typeof error.param === 'string' && error.param !== '')) return 'client';
  return 'other';
}

const STATUS_OF_CLASS: Record<FailureClass, number> = { quota: 429, client: 400, other: 502 };

/**
 * The error object inside a failure event's data (`{error: {...}}`, `{response: {error}}` or the
 * fields inline), with a message and type always present; null when the data names no failure.
 */
export function errorObjectOf(data: unknown): OpenAiErrorObject | null {
  if (typeof data !== 'object' || data === null) return null;
  const record = data as Record<string, unknown>;
  const inner = isObject(record.error) ? record.error : isObject(record.response) && isObject(record.response.error) ? record.response.error : null;
  const source = inner ?? (typeof record.message === 'string' || typeof record.code === 'string' ? record : null);
  if (!source) return null;
  return normalised(source);
}

/** A failure event's error object, classified into the failure the pool and the route act on. */
export function failureOfEvent(error: OpenAiErrorObject): RelayFailure {
  return new RelayFailure(STATUS_OF_CLASS[classOfError(error)], error);
}

/**
 * An HTTP error answer of the upstream: its real status, its `{error}` object verbatim (or the raw
 * text as the message when it sent none).
 */
export function failureOfStatus(status: number, bodyText: string, headers: Record<string, string> = {}): RelayFailure {
  let error: OpenAiErrorObject | null = null;
  try {
    error = errorObjectOf(JSON.parse(bodyText) as unknown);
  } catch {
    // not JSON: the raw text is the message
  }
  const text = bodyText.trim().slice(0, 2000);
  error ??= { message: text || `The upstream answered HTTP ${status}.`, type: 'upstream_error', code: null };
  return new RelayFailure(status, error, headers);
}

/** The failure of a stream that ended before its success terminal (502, reference §2.9). */
export function incompleteStream(): RelayFailure {
  return new RelayFailure(502, { message: 'Upstream stream ended before response.completed.', type: 'upstream_error', code: 'incomplete_stream' });
}

/** A transport failure (DNS, connect, TLS, reset, timeout): 502 so that the pool fails over. */
export function connectionFailure(reason: string): RelayFailure {
  return new RelayFailure(502, { message: `Upstream connection failed: ${reason}`, type: 'upstream_error', code: 'upstream_connection_failed' });
}

function normalised(source: Record<string, unknown>): OpenAiErrorObject {
  const message = typeof source.message === 'string' && source.message !== '' ? source.message : 'The upstream response failed.';
  const type = typeof source.type === 'string' ? source.type : null;
  const code = typeof source.code === 'string' ? source.code : typeof source.code === 'number' ? String(source.code) : null;
  return { ...source, message, type: type ?? code ?? 'upstream_error', code };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
