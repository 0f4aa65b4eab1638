/**
 * What the log never shows: fields whose name says they hold a secret (at any depth: a path list
 * such as pino's `redact` reaches only the depths it names), and secret-looking values anywhere in
 * a message or field: bearer and basic credentials, Keel tokens, hub seat keys, `token=` in URLs,
 * and every secret value the process knows from `env/secret-env.ts` (the environment's `KEEL_*`
 * secrets and the admin token).
 */
import { secretValues } from '../env/secret-env.js';

export const REDACTED = '[redacted]';

/** Field names whose value is never logged, at any depth (compared without case). */
const SECRET_KEYS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'token', 'access_token', 'bearer_token', 'admintoken', 'admin_token', 'apikey', 'api_key', 'x-api-key', 'password', 'passphrase', 'secret', 'seat_key', 'invite_token']);

const VALUE_PATTERNS: Array<[RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  [/\bkeel_[A-Za-z0-9_-]{16,}/g, `keel_${REDACTED}`],
  [/\bagora_[A-Za-z0-9_-]+/g, `agora_${REDACTED}`],
  [/([?&](?:token|access_token|api_key|apikey|key|secret|password)=)[^&#\s"']+/gi, `$1${REDACTED}`],
];

/** `text` with every secret-looking value replaced. */
export function scrubText(text: string): string {
  let out = text;
  for (const secret of secretValues()) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const MAX_DEPTH = 8;

/**
 * A copy of `value` with secret fields replaced, every string scrubbed, errors turned into `{type, message, stack, code?}`
 * (scrubbed too); the caller's objects are never changed. Past a depth of 8 a value is dropped.
 */
export function scrubFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Error) {
    const code = (value as { code?: unknown }).code;
    return { type: value.name, message: scrubText(value.message), stack: value.stack === undefined ? undefined : scrubText(value.stack), ...(code === undefined ? {} : { code }) };
  }
  if (Array.isArray(value)) return value.map((v) => scrubFields(v, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEYS.has(k.toLowerCase()) ? REDACTED : scrubFields(v, depth + 1);
  return out;
}
