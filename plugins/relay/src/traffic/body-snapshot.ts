/**
 * What a traffic record keeps of a body (reference §5.2): `{kind: "empty", bytes: 0}`, `{kind:
 * "json", bytes, sha256, json}`, `{kind: "text", bytes, sha256, text}` or `{kind: "binary_summary",
 * bytes, sha256, note}`. Text kinds are `text/*`, anything naming json, xml or javascript, and
 * form-urlencoded; a missing content type counts as text. Redaction happens when the record is
 * written, not here.
 *
 * A snapshot is taken when its record is serialised, not when the request makes it: hashing and
 * parsing a body is most of a record's cost, and the log serialises after the answer is written
 * (traffic-log.ts), off the call's critical path. The bytes and values a snapshot names are never
 * changed afterwards by the relay (a raw body is read once; an answer is sent as it is).
 */
import { createHash } from 'node:crypto';
import { rawJsonSlot } from './redaction.js';

export type BodySnapshot =
  | { kind: 'empty'; bytes: 0 }
  | { kind: 'json'; bytes: number; sha256: string; json: unknown }
  | { kind: 'text'; bytes: number; sha256: string; text: string }
  | { kind: 'binary_summary'; bytes: number; sha256: string; note: string };

/** A body as a record carries it: a snapshot, or one taken when the record is serialised (`toJSON`). */
export type LoggedBody = BodySnapshot | DeferredSnapshot;

const TEXT_TYPE = /^text\/|json|xml|javascript|application\/x-www-form-urlencoded/i;

/** A snapshot computed on first serialisation (JSON.stringify calls `toJSON`), then kept. */
export abstract class DeferredSnapshot {
  private taken: BodySnapshot | undefined;

  toJSON(): unknown {
    return (this.taken ??= this.take());
  }

  protected abstract take(): BodySnapshot;
}

class BytesSnapshot extends DeferredSnapshot {
  constructor(private readonly bytes: Buffer, private readonly contentType: string | undefined) {
    super();
  }

  protected take(): BodySnapshot {
    return snapshotNow(this.bytes, this.contentType);
  }
}

class JsonSnapshot extends DeferredSnapshot {
  private text: string | undefined;
  private sha256 = '';

  constructor(private readonly value: unknown) {
    super();
  }

  override toJSON(): unknown {
    // Inside `serializeRecord`'s fast pass the body's JSON text is spliced in as it is, not serialised twice.
    const text = this.jsonText();
    if (text === undefined) return { kind: 'empty', bytes: 0 };
    const slot = rawJsonSlot(text);
    return slot === null ? super.toJSON() : { kind: 'json', bytes: Buffer.byteLength(text), sha256: this.sha256, json: slot };
  }

  protected take(): BodySnapshot {
    const text = this.jsonText();
    if (text === undefined) return { kind: 'empty', bytes: 0 };
    return { kind: 'json', bytes: Buffer.byteLength(text), sha256: this.sha256, json: this.value };
  }

  private jsonText(): string | undefined {
    if (this.text === undefined && this.value !== undefined) {
      this.text = JSON.stringify(this.value) as string | undefined;
      if (this.text !== undefined) this.sha256 = createHash('sha256').update(this.text).digest('hex');
    }
    return this.text;
  }
}

/** The snapshot of raw body bytes sent with `contentType` (taken when the record is serialised). */
export function snapshotOfBytes(bytes: Buffer, contentType: string | undefined): LoggedBody {
  if (bytes.length === 0) return { kind: 'empty', bytes: 0 };
  return new BytesSnapshot(bytes, contentType);
}

/** The snapshot of a body already parsed as JSON (its bytes counted as its compact serialisation). */
export function snapshotOfJson(value: unknown): LoggedBody {
  if (value === undefined) return { kind: 'empty', bytes: 0 };
  return new JsonSnapshot(value);
}

function snapshotNow(bytes: Buffer, contentType: string | undefined): BodySnapshot {
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
