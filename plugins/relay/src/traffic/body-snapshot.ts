/**
 * What a traffic record keeps of a body (reference §5.2): `{kind: "empty", bytes: 0}`, `{kind:
 * "json", bytes, sha256, json}`, `{kind: "text", bytes, sha256, text}` or `{kind: "binary_summary",
 * bytes, sha256, note}`. Text kinds are `text/*`, anything naming json, xml or javascript, and
 * form-urlencoded; a missing content type counts as text. Redaction happens when the record is
 * written, not here.
 */
import { createHash } from 'node:crypto';

export type BodySnapshot =
  | { kind: 'empty'; bytes: 0 }
  | { kind: 'json'; bytes: number; sha256: string; json: unknown }
  | { kind: 'text'; bytes: number; sha256: string; text: string }
  | { kind: 'binary_summary'; bytes: number; sha256: string; note: string };

const TEXT_TYPE = /^text\/|json|xml|javascript|application\/x-www-form-urlencoded/i;

/** The snapshot of raw body bytes sent with `contentType`. */
export function snapshotOfBytes(bytes: Buffer, contentType: string | undefined): BodySnapshot {
  if (bytes.length === 0) return { kind: 'empty', bytes: 0 };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (contentType && !TEXT_TYPE.test(contentType)) return { kind: 'binary_summary', bytes: bytes.length, sha256, note: `binary body (${contentType.split(';')[0]!.trim()})` };
  const text = bytes.toString('utf8');
  if (!contentType || /json/i.test(contentType)) {
    try {
      return { kind: 'json', bytes: bytes.length, sha256, json: JSON.parse(text) as unknown };
    } catch {
      // not JSON after all: kept as text
    }
  }
  return { kind: 'text', bytes: bytes.length, sha256, text };
}

/** The snapshot of a body already parsed as JSON (its bytes counted as its compact serialisation). */
export function snapshotOfJson(value: unknown): BodySnapshot {
  if (value === undefined) return { kind: 'empty', bytes: 0 };
  const text = JSON.stringify(value);
  return { kind: 'json', bytes: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex'), json: value };
}
