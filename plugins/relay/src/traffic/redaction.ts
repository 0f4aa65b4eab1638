/**
 * A traffic record as one log line (reference §5.1, §5.2): compact JSON, ASCII-escaped, with secrets
 * replaced by `"[REDACTED]"` at any depth. Keys are matched case-insensitively. `code` stays readable
 * inside error objects (the value of an `error` key, or an object with a string `message`), because
 * blanket redaction hid the error codes operators need (reference §8 item 7); an OAuth `code`
 * elsewhere is still scrubbed. Only the log line is affected, never what a client receives.
 */

import { randomBytes } from 'node:crypto';

export const REDACTED = '[REDACTED]';

const SECRET_KEYS = new Set([
  'authorization', 'cookie', 'set-cookie', 'access_token', 'refresh_token', 'id_token', 'api_key',
  'code', 'bearer_token', 'relay_token', 'file_data',
  // Other spellings clients use for a key (Anthropic, Azure, proxies): the credential in clear otherwise.
  'x-api-key', 'api-key', 'proxy-authorization',
]);

/** Query parameters that carry a credential (`?api_key=`, `?token=`): their values are scrubbed from a logged query string. */
const SECRET_QUERY_PARAMS = /^(?:api[-_]?key|key|token|access_token|bearer_token|relay_token|auth|authorization|password|secret)$/i;

const NON_ASCII = /[\u007f-\uffff]/g;

function escapeChar(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * Any secret key as JSON.stringify writes a key: `"<key>":`, never escaped (the names are plain ASCII
 * letters, `_` and `-`), unless its value is already exactly `"[REDACTED]"` (headers redacted by
 * `loggedHeaders`: the pass would write the same). A line without a match has no secret left at any
 * depth, so the redacting pass would leave it as it is; a match (also one inside a string value)
 * takes the redacting pass, as does a non-empty `query`.
 */
const SECRET_KEY_IN_JSON = new RegExp(`"(?:${[...SECRET_KEYS].join('|')})":(?!"\\[REDACTED\\]"[,}\\]])`, 'i');
/** A non-empty logged query string: its credential parameters are scrubbed by the redacting pass. */
const QUERY_IN_JSON = /"query":"[^"]/i;

/**
 * Bodies already serialised once (a JSON snapshot hashes its text) are put in the line as that
 * text: during the fast pass a snapshot's `toJSON` takes a slot and leaves a placeholder string
 * no client can forge (a per-process random token), replaced by the text afterwards.
 */
const RAW_TOKEN = `\u0000raw-${randomBytes(12).toString('hex')}-`;
const RAW_PLACEHOLDER = new RegExp(`"\\\\u0000raw-${RAW_TOKEN.slice(5, -1)}-(\\d+)"`, 'g');
let rawSlots: string[] | null = null;

/** Inside `serializeRecord`'s fast pass: a placeholder for the JSON `text`; otherwise null (serialise the value). */
export function rawJsonSlot(text: string): string | null {
  if (rawSlots === null) return null;
  rawSlots.push(text);
  return `${RAW_TOKEN}${rawSlots.length - 1}`;
}

/** The record's log line (without the newline). Throws only for values JSON cannot hold (cycles, BigInt). */
export function serializeRecord(record: object): string {
  // The plain stringify is several times faster than one with a replacer (the hot path writes
  // several records per call); the replacer runs only when a secret key may be present.
  const slots: string[] = [];
  let plain: string;
  rawSlots = slots;
  try {
    plain = JSON.stringify(record);
  } finally {
    rawSlots = null;
  }
  let text: string;
  if (SECRET_KEY_IN_JSON.test(plain) || QUERY_IN_JSON.test(plain) || slots.some((slot) => SECRET_KEY_IN_JSON.test(slot))) text = redactedJson(record);
  else if (slots.length === 0) text = plain;
  else text = plain.replace(RAW_PLACEHOLDER, (_match, index: string) => slots[Number(index)]!);
  // JSON.stringify leaves non-ASCII characters only inside strings, so escaping the whole line is exact.
  return text.replace(NON_ASCII, escapeChar);
}

/**
 * Request headers for a record, their secret values already `"[REDACTED]"` when serialised (a copy
 * made then; the request's headers are never touched): an inbound record then needs no redacting
 * pass just for its `authorization` header.
 */
export function loggedHeaders(headers: Record<string, string | string[] | undefined>): object {
  return {
    toJSON() {
      const copy: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(headers)) copy[name] = value !== undefined && value !== null && SECRET_KEYS.has(name.toLowerCase()) ? REDACTED : value;
      return copy;
    },
  };
}

function redactedJson(record: object): string {
  // Objects reached under an `error` key: their `code` is an error code, not a secret.
  const errorObjects = new WeakSet<object>();
  return JSON.stringify(record, function redact(this: unknown, key: string, value: unknown) {
    if (key === '') return value;
    const lower = key.toLowerCase();
    if (lower === 'error' && typeof value === 'object' && value !== null) errorObjects.add(value);
    if (lower === 'query' && typeof value === 'string') return redactQuery(value);
    if (!SECRET_KEYS.has(lower) || value === null || value === undefined) return value;
    if (lower === 'code' && isErrorObject(this, errorObjects)) return value;
    return REDACTED;
  });
}

/** The query string with the values of credential parameters replaced (the names stay, for the operator). */
function redactQuery(query: string): string {
  return query.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch { /* a malformed escape: match the raw name */ }
    return equals >= 0 && SECRET_QUERY_PARAMS.test(decoded.trim()) ? `${name}=${REDACTED}` : pair;
  }).join('&');
}

function isErrorObject(holder: unknown, errorObjects: WeakSet<object>): boolean {
  if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) return false;
  return errorObjects.has(holder) || typeof (holder as { message?: unknown }).message === 'string';
}
