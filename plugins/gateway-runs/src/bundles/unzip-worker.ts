/**
 * Worker thread of the `bundle-unzip` pool: unzips an uploaded bundle within the limits, so that
 * scanning and inflating an archive from any account never runs on the main thread. Errors cross
 * the thread boundary as values (classes do not survive structured cloning).
 */
import { unzipBounded, BundleTooLarge, type BundleLimits } from './bounded-unzip.js';

export interface UnzipTask {
  bytes: Uint8Array;
  limits: BundleLimits;
}

export type UnzipResult = { ok: true; files: Map<string, Uint8Array> } | { ok: false; tooLarge: boolean; message: string };

export default function unzip(task: UnzipTask): UnzipResult {
  try {
    return { ok: true, files: unzipBounded(task.bytes, task.limits) };
  } catch (err) {
    return { ok: false, tooLarge: err instanceof BundleTooLarge, message: (err as Error).message };
  }
}
