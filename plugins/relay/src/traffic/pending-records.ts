/**
 * Records waiting for the disk. `add` only queues the record: it is redacted and serialised by
 * `drain`, which the traffic log runs once the current I/O callback is done (after the answer it
 * belongs to was written), before anything reads the queue (a flush, the status, the recent
 * records), and at once when many records wait. What a record names is not changed by the relay
 * after it is written, so serialising later gives the same line.
 *
 * Serialised lines wait for the disk within `maxBufferedBytes`; past it a record is dropped and
 * counted (the disk is not keeping up).
 */
import { createHash } from 'node:crypto';
import { NOTABLE_PHASES, type NotableRecords } from './notable-records.js';
import { serializeRecord } from './redaction.js';
import type { TrafficRecord } from '../contracts.js';

export interface PendingLine {
  line: string;
  ms: number;
  phase: unknown;
  requestId: unknown;
}

/** Past this many queued records, `add` serialises them at once (a burst in one callback stays bounded). */
const MAX_QUEUED_RECORDS = 2048;

export class PendingRecords {
  private queued: Array<{ record: TrafficRecord; ms: number }> = [];
  private lines: PendingLine[] = [];
  private bytes = 0;

  constructor(
    private readonly maxBufferedBytes: number,
    /** Why a record past the buffer is dropped (names the setting). */
    private readonly fullMessage: string,
    private readonly notable: NotableRecords,
    /** A record dropped, and why. */
    private readonly onDropped: (message: string) => void,
  ) {}

  /** Queues a record written at `ms` (wall clock); answers whether `drain` should be scheduled. */
  add(record: TrafficRecord, ms: number): boolean {
    this.queued.push({ record, ms });
    if (this.queued.length >= MAX_QUEUED_RECORDS) this.drain();
    return this.queued.length === 1;
  }

  get isEmpty(): boolean {
    return this.queued.length === 0 && this.lines.length === 0;
  }

  /** Serialises the queued records into lines (redacted, `logged_at` added), feeding the notable ones to the status page. */
  drain(): void {
    const queued = this.queued;
    if (queued.length === 0) return;
    this.queued = [];
    for (const { record, ms } of queued) {
      let line: string;
      try {
        line = serializeRecord(record);
        // `logged_at` last, as a copy of the record with it would have it (and no copy made).
        if (record.logged_at === undefined) line = `${line.length > 2 ? `${line.slice(0, -1)},` : '{'}"logged_at":"${this.isoOf(ms)}"}`;
      } catch (err) {
        this.onDropped(`a traffic record could not be serialised (${(err as Error).message})`);
        continue;
      }
      if (typeof record.phase === 'string' && NOTABLE_PHASES.has(record.phase)) this.notable.add(line);
      if (this.bytes + line.length > this.maxBufferedBytes) {
        this.onDropped(this.fullMessage);
        continue;
      }
      this.lines.push({ line, ms, phase: record.phase, requestId: record.request_id });
      this.bytes += line.length + 1;
    }
  }

  private isoMs = Number.NaN;
  private iso = '';

  /** The ISO time of `ms` (records of one callback mostly share it). */
  private isoOf(ms: number): string {
    if (ms !== this.isoMs) {
      this.isoMs = ms;
      this.iso = new Date(ms).toISOString();
    }
    return this.iso;
  }

  /** Takes every serialised line (after draining), oldest first. */
  take(): PendingLine[] {
    this.drain();
    const lines = this.lines;
    this.lines = [];
    this.bytes = 0;
    return lines;
  }
}

/** The omission record written instead of a line larger than a log file may be (reference §5.3 `log_record_omitted`). */
export function omissionLine(item: PendingLine, maxFileMb: number): string {
  const omission: Record<string, unknown> = {};
  if (typeof item.requestId === 'string') omission.request_id = item.requestId.slice(0, 256);
  if (typeof item.phase === 'string') omission.phase = item.phase.slice(0, 128);
  omission.log_record_omitted = `record larger than max_file_mb (${maxFileMb} MiB)`;
  omission.original_bytes = item.line.length + 1;
  omission.sha256 = createHash('sha256').update(item.line).digest('hex');
  omission.logged_at = new Date(item.ms).toISOString();
  return serializeRecord(omission);
}
