/**
 * Unzips a `.flow` bundle without trusting it. fflate's streaming `Unzip` walks the archive's
 * entries (counted as they appear); each deflated entry is inflated by node's zlib with
 * `maxOutputLength` set to what is left of the budget, so zlib stops as soon as the running total
 * would pass the limit: a zip bomb costs at most the limit, never its full inflated size, and the
 * native inflater keeps the event loop busy for milliseconds, not seconds (16 MiB of zeros: ~20 ms).
 */
import { inflateRawSync } from 'node:zlib';
import { Unzip, type FlateError, type UnzipDecoder, type UnzipFile } from 'fflate';
import { formatBytes } from '@keel/plugin-sdk';
import { BundleError } from './bundle-error.js';

export interface BundleLimits {
  /** Most bytes all entries together may inflate to. */
  maxInflatedBytes: number;
  /** Most entries (files and folders) the archive may hold. */
  maxEntries: number;
  /** Deepest nesting of arrays and objects in the manifest and a flow (what walks a flow recurses). */
  maxJsonDepth: number;
  /** Most nodes, and most edges, one flow may have (what compiles and runs a flow scans its edges per node). */
  maxFlowNodes: number;
  maxFlowEdges: number;
}

export const DEFAULT_BUNDLE_LIMITS: BundleLimits = { maxInflatedBytes: 16 * 1024 * 1024, maxEntries: 500, maxJsonDepth: 128, maxFlowNodes: 2000, maxFlowEdges: 8000 };

/** The archive inflates to more than `maxInflatedBytes` (answered with 413). */
export class BundleTooLarge extends BundleError {}

const SLICE = 64 * 1024;

/** `PK\x03\x04`: a zip written by any packer starts with its first entry's local header. */
const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];

export function unzipBounded(bytes: Uint8Array, limits: BundleLimits): Map<string, Uint8Array> {
  // Checked first so that junk is refused at once instead of being scanned byte by byte for headers.
  if (!LOCAL_HEADER.every((b, i) => bytes[i] === b)) throw new BundleError('not a zip archive (it does not start with a zip entry)');
  const files = new Map<string, Uint8Array>();
  const unfinished = new Set<string>();
  let inflated = 0;
  let entries = 0;
  let failure: BundleError | null = null;
  const fail = (err: BundleError, file?: UnzipFile) => {
    failure ??= err;
    file?.terminate();
  };
  const unzip = new Unzip((file) => {
    if (failure) return;
    entries += 1;
    if (entries > limits.maxEntries) return fail(new BundleError(`the archive holds more than ${limits.maxEntries} entries, the most a bundle may have (gateway-runs setting bundleLimits.maxEntries)`));
    if (file.compression !== 0 && file.compression !== 8) return fail(new BundleError(`${file.name} uses zip compression method ${file.compression}; only stored and deflate are supported`));
    const chunks: Uint8Array[] = [];
    unfinished.add(file.name);
    file.ondata = (err, data, final) => {
      if (failure) return;
      if (err) return fail(new BundleError(`${file.name} cannot be inflated (${err.message})`), file);
      inflated += data.length;
      if (inflated > limits.maxInflatedBytes) {
        return fail(tooLarge(limits), file);
      }
      chunks.push(data);
      if (final) {
        unfinished.delete(file.name);
        files.set(file.name, concat(chunks));
      }
    };
    file.start();
  });
  unzip.register(boundedInflate(() => limits.maxInflatedBytes - inflated, () => fail(tooLarge(limits))));
  try {
    for (let offset = 0; offset < bytes.length && !failure; offset += SLICE) {
      unzip.push(bytes.subarray(offset, offset + SLICE), offset + SLICE >= bytes.length);
    }
  } catch (err) {
    fail(new BundleError(`not a readable zip archive (${(err as Error).message})`));
  }
  if (failure) throw failure;
  if (entries === 0) throw new BundleError('not a zip archive (no entries found)');
  if (unfinished.size > 0) throw new BundleError(`the archive is truncated (${[...unfinished][0]} is incomplete)`);
  return files;
}

const tooLarge = (limits: BundleLimits) => new BundleTooLarge(`the archive inflates to more than ${formatBytes(limits.maxInflatedBytes)}, the most a bundle may hold (gateway-runs setting bundleLimits.maxInflatedBytes)`);

/**
 * A deflate decoder for fflate's `Unzip` that gathers an entry's compressed bytes (bounded by the
 * upload) and inflates them once with zlib, allowed at most `remaining()` bytes of output.
 */
function boundedInflate(remaining: () => number, onTooLarge: () => void) {
  return class BoundedInflate implements UnzipDecoder {
    static compression = 8;
    ondata: UnzipDecoder['ondata'] = () => {};
    private readonly compressed: Uint8Array[] = [];

    push(chunk: Uint8Array, final: boolean): void {
      this.compressed.push(chunk);
      if (!final) return;
      let out: Uint8Array<ArrayBuffer>;
      try {
        // maxOutputLength must be positive; an entry that inflates to anything when nothing is left fails.
        out = inflateRawSync(concat(this.compressed), { maxOutputLength: Math.max(1, remaining()) }) as Uint8Array<ArrayBuffer>;
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') onTooLarge();
        else this.ondata(Object.assign(new Error((err as Error).message), { code: 0 }) as FlateError, new Uint8Array(0), true);
        return;
      }
      this.ondata(null, out, true);
    }
  };
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
