/**
 * The identity of a command under its `command_id` (reference gateway-surfaces §3.7 door check 3):
 * a digest over its type, its payload without `expected_revision`, and `expected_revision`, so a
 * retry of the same command is a duplicate and another command under the same id a conflict.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>).sort().filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    return `{${entries.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function commandDigest(type: string, payload: Record<string, unknown>): string {
  const { expected_revision: expected, ...rest } = payload;
  return sha256(canonicalJson([type, rest, expected ?? null]));
}
