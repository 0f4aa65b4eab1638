/**
 * One connection of a download: asks for the bytes the `.part` file lacks (HTTP Range, with
 * If-Range so a changed file starts over), appends them, and stops at the size cap, when the
 * server goes quiet for too long, or when the caller aborts. A dropped connection is a
 * `retryable` failure: the next attempt resumes where the file ends.
 */
import { open, stat, truncate } from 'node:fs/promises';
import { checkHead, HEAD_BYTES } from './model-format.js';
import type { DownloadKind } from './download-target.js';

export class DownloadFailure extends Error {
  constructor(readonly reasonCode: string, message: string, readonly retryable: boolean) {
    super(message);
  }
}

export interface AttemptOptions {
  url: string;
  partPath: string;
  kind: DownloadKind;
  validator: string | null;
  maxBytes: number;
  idleTimeoutMs: number;
  signal: AbortSignal;
  onStart(info: { offset: number; total: number | null; validator: string | null }): void;
  onProgress(bytes: number): void;
}

/** Fetches the rest of the file into `partPath`; resolves with the final size when it is complete. */
export async function fetchRemainder(options: AttemptOptions): Promise<number> {
  let offset = await sizeOf(options.partPath);
  const idle = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), options.idleTimeoutMs);
  };
  const signal = AbortSignal.any([options.signal, idle.signal]);
  touch();
  try {
    const headers: Record<string, string> = { 'accept-encoding': 'identity' };
    if (offset > 0) {
      headers.range = `bytes=${offset}-`;
      if (options.validator) headers['if-range'] = options.validator;
    }
    let response: Response;
    try {
      response = await fetch(options.url, { headers, signal, redirect: 'follow' });
    } catch (err) {
      throw networkFailure(err, options, idle.signal);
    }
    const finalUrl = new URL(response.url || options.url);
    if (finalUrl.protocol !== 'http:' && finalUrl.protocol !== 'https:') {
      throw new DownloadFailure('unsupported_url', `The download was redirected to a ${finalUrl.protocol} URL; only http and https are fetched.`, false);
    }
    let total: number | null;
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get('content-range'));
      if (!range || range.start !== offset) {
        await response.body?.cancel();
        await truncate(options.partPath, 0);
        throw new DownloadFailure('range_mismatch', 'The server answered a different byte range than asked; starting over.', true);
      }
      total = range.total;
    } else if (response.status === 200) {
      if (offset > 0) await truncate(options.partPath, 0); // Range ignored or the file changed (If-Range).
      offset = 0;
      total = lengthOf(response.headers.get('content-length'));
    } else if (response.status === 416 && offset > 0) {
      await response.body?.cancel();
      const range = parseContentRange(response.headers.get('content-range'));
      if (range?.total === offset) return offset; // Already complete (a restart right after the last byte).
      await truncate(options.partPath, 0);
      throw new DownloadFailure('range_mismatch', 'The server refused the byte range; starting over.', true);
    } else {
      await response.body?.cancel();
      const retryable = response.status >= 500 || response.status === 429 || response.status === 408;
      throw new DownloadFailure('http_status', `The server answered ${response.status} ${response.statusText || ''}`.trim() + ` for ${finalUrl.host}.`, retryable);
    }
    if (total !== null && total > options.maxBytes) {
      await response.body?.cancel();
      throw tooLarge(total, options.maxBytes);
    }
    // If-Range takes a strong ETag or a date; a weak ETag would make every resume start over.
    const etag = response.headers.get('etag');
    const validator = etag && !etag.startsWith('W/') ? etag : (response.headers.get('last-modified') ?? null);
    options.onStart({ offset, total, validator });
    if (!response.body) throw new DownloadFailure('empty_body', 'The server sent no body.', true);

    const file = await open(options.partPath, offset === 0 ? 'w' : 'a');
    let bytes = offset;
    let head = offset >= HEAD_BYTES ? null : await readHead(options.partPath, offset);
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        touch();
        if (bytes + chunk.byteLength > options.maxBytes) throw tooLarge(bytes + chunk.byteLength, options.maxBytes);
        await file.write(chunk).catch((err: NodeJS.ErrnoException) => {
          throw new DownloadFailure('write_failed', `Could not write to the models folder: ${err.code ?? err.message}.`, false);
        });
        bytes += chunk.byteLength;
        if (head) {
          head = Buffer.concat([head, chunk]);
          if (head.length >= HEAD_BYTES) {
            const wrong = checkHead(options.kind, head);
            if (wrong) throw new DownloadFailure('not_a_model', `Refused: ${wrong}.`, false);
            head = null;
          }
        }
        options.onProgress(bytes);
      }
    } catch (err) {
      if (err instanceof DownloadFailure) throw err;
      throw networkFailure(err, options, idle.signal);
    } finally {
      await file.close();
    }
    if (total !== null && bytes < total) throw new DownloadFailure('connection_dropped', `The connection closed after ${bytes} of ${total} bytes.`, true);
    return bytes;
  } finally {
    clearTimeout(timer);
  }
}

function networkFailure(err: unknown, options: AttemptOptions, idle: AbortSignal): DownloadFailure | unknown {
  if (options.signal.aborted) return err; // Cancelled or stopping: the caller knows why.
  if (idle.aborted) return new DownloadFailure('idle_timeout', `The server sent nothing for ${options.idleTimeoutMs} ms (setting downloads.idleTimeoutMs).`, true);
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return new DownloadFailure('connection_dropped', `The connection failed: ${cause?.code ?? cause?.message ?? (err as Error).message}.`, true);
}

function tooLarge(size: number, max: number): DownloadFailure {
  return new DownloadFailure('too_large', `The file is ${size} bytes or more, over the limit of ${max} bytes (setting downloads.maxBytes).`, false);
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await stat(file)).size;
  } catch {
    return 0;
  }
}

async function readHead(file: string, size: number): Promise<Buffer> {
  if (size === 0) return Buffer.alloc(0);
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size);
    await handle.read(buf, 0, size, 0);
    return buf;
  } finally {
    await handle.close();
  }
}

function lengthOf(value: string | null): number | null {
  if (value === null || !/^\d+$/.test(value)) return null;
  return Number(value);
}

// Content-Range: "bytes START-END/TOTAL", "bytes START-END/*" or "bytes */TOTAL".
function parseContentRange(value: string | null): { start: number | null; total: number | null } | null {
  const m = /^bytes (?:(\d+)-\d+|\*)\/(\d+|\*)$/.exec(value?.trim() ?? '');
  if (!m) return null;
  return { start: m[1] === undefined ? null : Number(m[1]), total: m[2] === '*' ? null : Number(m[2]) };
}
