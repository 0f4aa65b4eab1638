/**
 * One page of a run's records as `step` frames: what the `ledger-read` pool's worker does for a
 * stream, and what the main thread does itself for a small ledger (`inline-reads.ts`). A page is
 * bounded by records and by bytes (at least one record), so one read never serialises a whole
 * large ledger.
 */
import type { Database } from 'lmdb';
import type { StepRecord } from './records.js';

export interface ReadTask {
  runId: string;
  after: number;
  /** At most this many records... */
  limit: number;
  /** ...and stop once the frames reach this many bytes. */
  maxBytes: number;
}

export interface ReadResult {
  /** The frames, back to back. */
  bytes: Uint8Array;
  /** Cursor of each frame, and where it ends in `bytes`. */
  cursors: number[];
  ends: number[];
  /** False when the read reached the end of the ledger (as committed when it began). */
  more: boolean;
}

const encoder = new TextEncoder();

export function readFrames(records: Database<StepRecord, [string, number]>, task: ReadTask): ReadResult {
  const parts: string[] = [];
  const cursors: number[] = [];
  const ends: number[] = [];
  let end = 0;
  for (const { key, value } of records.getRange({ start: [task.runId, task.after + 1], end: [task.runId, Number.MAX_SAFE_INTEGER], limit: task.limit })) {
    const frame = `event: step\nid: ${key[1]}\ndata: ${JSON.stringify({ ...value, cursor: key[1] })}\n\n`;
    parts.push(frame);
    end += Buffer.byteLength(frame);
    cursors.push(key[1]);
    ends.push(end);
    if (end >= task.maxBytes) break;
  }
  const more = cursors.length === task.limit || end >= task.maxBytes;
  return { bytes: encoder.encode(parts.join('')), cursors, ends, more };
}
