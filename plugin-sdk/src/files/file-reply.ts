/**
 * A handler answers with a file: `return sendFile(koa, {root, file})`. Conditional requests
 * (If-None-Match, If-Modified-Since → 304), byte ranges (206 with Content-Range, 416 when
 * unsatisfiable; several ranges get the whole file unless `maxRanges` allows a multipart/byteranges
 * answer), HEAD without reading, nosniff, and by default
 * `Content-Security-Policy: sandbox` and an attachment Content-Disposition, because the files a
 * plugin replies with are usually user content that must never run on the server's origin.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import etag from 'etag';
import { contentType as contentTypeOf } from 'mime-types';
import parseRange from 'range-parser';
import type Koa from 'koa';
import { HttpError, notFound } from '../errors.js';
import { HANDLED } from '../routes.js';
import { openConfinedFile, type ConfinedFile } from './confined-file.js';

export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/** The content type of a file name, from its extension (`mime-types`), else application/octet-stream. */
export function contentTypeOfName(name: string): string {
  return contentTypeOf(path.extname(name)) || FALLBACK_CONTENT_TYPE;
}

export interface FileReplyOptions {
  /** The folder the file must stay inside, after symlinks. */
  root: string;
  /** The file's path inside `root`, `/`-separated (a request parameter may be passed as is). */
  file: string;
  /** Default: from the extension (`mime-types`), else application/octet-stream. */
  contentType?: string;
  /** Default `attachment`; `inline` lets a browser show it (only for types that cannot run). */
  disposition?: 'attachment' | 'inline';
  /** The name in Content-Disposition; default the file's base name. */
  filename?: string;
  /** Default `sandbox`; `null` sends none. */
  csp?: string | null;
  /** Default `private, no-cache` (revalidate with the ETag). */
  cacheControl?: string;
  /** A strong validator you already have (a content hash, quoted); default a weak one from size and mtime. */
  etag?: string;
  /** More headers to send with the file (not with a 404). */
  headers?: Record<string, string>;
  /** Serve names starting with a dot; default false. */
  allowDotfiles?: boolean;
  /** The 404 sentence when there is no such file. */
  notFoundMessage?: string;
  /** Up to this many ranges in one request are answered as multipart/byteranges; default 1 (several ranges get the whole file). */
  maxRanges?: number;
}

/** How a file is written once it is open: shared by `sendFile` and `staticFolder`. */
export interface WriteFileOptions {
  contentType: string;
  cacheControl: string;
  csp: string | null;
  disposition?: string;
  etag?: string;
  headers?: Record<string, string>;
  /** Up to this many ranges in one request are answered as multipart/byteranges; default 1 (more get the whole file). */
  maxRanges?: number;
}

/** Bytes per read of a streamed file. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** `attachment; filename="..."`, with an RFC 8187 `filename*` when the name is not plain ASCII. */
export function dispositionHeader(type: 'attachment' | 'inline', filename: string): string {
  // The ASCII fallback replaces what a quoted string or a file system might choke on with `_`.
  return contentDisposition(filename, { type, fallback: filename.replace(/[^\x20-\x7e]|["\\/]/g, '_') });
}

/** True when an If-Range condition (a strong ETag or a date) still matches the file. */
function rangeStillValid(koa: Koa.Context, strongEtag: string | undefined, mtime: Date): boolean {
  const ifRange = koa.get('if-range');
  if (!ifRange) return true;
  if (ifRange.includes('"')) return strongEtag !== undefined && !strongEtag.startsWith('W/') && ifRange === strongEtag;
  const since = Date.parse(ifRange);
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/** Writes an opened file as the response and takes ownership of its handle (closed when done). */
export async function writeFileReply(koa: Koa.Context, file: ConfinedFile, options: WriteFileOptions): Promise<typeof HANDLED> {
  const { handle, stats } = file;
  let streaming = false;
  try {
    const tag = options.etag ?? etag(stats);
    koa.set('X-Content-Type-Options', 'nosniff');
    koa.set('Accept-Ranges', 'bytes');
    koa.set('Cache-Control', options.cacheControl);
    koa.set('ETag', tag);
    koa.set('Last-Modified', stats.mtime.toUTCString());
    if (options.csp) koa.set('Content-Security-Policy', options.csp);
    if (options.disposition) koa.set('Content-Disposition', options.disposition);
    if (options.headers) koa.set(options.headers);
    koa.status = 200;
    if (koa.fresh) {
      koa.status = 304;
      return HANDLED;
    }
    let start = 0;
    let end = stats.size - 1;
    const range = koa.get('range');
    if (range && rangeStillValid(koa, options.etag, stats.mtime)) {
      const ranges = parseRange(stats.size, range, { combine: true });
      if (ranges === -1) {
        throw new HttpError(416, `The requested range is outside the file, which has ${stats.size} bytes.`, {
          code: 'range_not_satisfiable', headers: { 'content-range': `bytes */${stats.size}` },
        });
      }
      // A malformed header (-2), another unit or more ranges than allowed: the whole file, as RFC 9110 allows.
      if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
        start = ranges[0]!.start;
        end = ranges[0]!.end;
        koa.status = 206;
        koa.set('Content-Range', `bytes ${start}-${end}/${stats.size}`);
      } else if (ranges !== -2 && ranges.type === 'bytes' && ranges.length > 1 && ranges.length <= (options.maxRanges ?? 1)) {
        koa.status = 206;
        const reply = multipartRanges(file, ranges, options.contentType, stats.size);
        koa.set('Content-Type', reply.contentType);
        if (koa.method === 'HEAD') {
          koa.body = Buffer.alloc(0);
          koa.length = reply.length;
          return HANDLED;
        }
        koa.body = reply.body;
        koa.length = reply.length;
        streaming = true;
        return HANDLED;
      }
    }
    // As given: koa.type would add a charset to a declared type the caller chose to keep.
    koa.set('Content-Type', options.contentType);
    const length = end - start + 1;
    if (koa.method === 'HEAD' || length <= 0) {
      koa.body = Buffer.alloc(0);
      koa.length = Math.max(length, 0);
      return HANDLED;
    }
    // Koa destroys the stream when the response ends or the client goes away; that closes the handle.
    // 1 MiB reads (reference gateway-surfaces §1.8): a FileHandle stream pays a promise per read, and
    // at the default 64 KiB that halved throughput per CPU (bench/artifacts, RESULTS 2026-11-24).
    koa.body = handle.createReadStream({ start, end, autoClose: true, highWaterMark: READ_CHUNK_BYTES });
    koa.length = length;
    streaming = true;
    return HANDLED;
  } finally {
    if (!streaming) await handle.close();
  }
}

/**
 * Several ranges as one `multipart/byteranges` body (RFC 9110 §14.6): each part with its
 * Content-Type and Content-Range, read from the handle in order; the handle is closed when the body
 * ends or is destroyed (the client went away).
 */
function multipartRanges(file: ConfinedFile, ranges: Array<{ start: number; end: number }>, type: string, size: number) {
  const boundary = `keel-${randomBytes(12).toString('hex')}`;
  const heads = ranges.map((r, i) => Buffer.from(`${i ? '\r\n' : ''}--${boundary}\r\nContent-Type: ${type}\r\nContent-Range: bytes ${r.start}-${r.end}/${size}\r\n\r\n`));
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = heads.reduce((n, h, i) => n + h.length + ranges[i]!.end - ranges[i]!.start + 1, tail.length);
  async function* parts() {
    for (let i = 0; i < ranges.length; i++) {
      yield heads[i]!;
      const { start, end } = ranges[i]!;
      for await (const chunk of file.handle.createReadStream({ start, end, autoClose: false })) yield chunk as Buffer;
    }
    yield tail;
  }
  const body = Readable.from(parts(), { objectMode: false });
  // 'close' comes after the end and after a destroy, also one before the first read.
  body.once('close', () => void file.handle.close().catch(() => undefined));
  return { contentType: `multipart/byteranges; boundary=${boundary}`, length, body };
}

/**
 * Answers with the file `options.file` inside `options.root` (404 in the route's error shape when
 * there is no such regular file there). Returns `HANDLED` for the handler to return.
 */
export async function sendFile(koa: Koa.Context, options: FileReplyOptions): Promise<typeof HANDLED> {
  const file = await openConfinedFile(options.root, options.file, options.allowDotfiles);
  if (!file) throw notFound(options.notFoundMessage ?? 'There is no such file.', { code: 'not_found' });
  const filename = options.filename ?? path.posix.basename(options.file);
  return writeFileReply(koa, file, {
    contentType: options.contentType ?? (contentTypeOf(path.extname(options.file)) || FALLBACK_CONTENT_TYPE),
    cacheControl: options.cacheControl ?? 'private, no-cache',
    csp: options.csp === undefined ? 'sandbox' : options.csp,
    disposition: dispositionHeader(options.disposition ?? 'attachment', filename),
    etag: options.etag,
    headers: options.headers,
    maxRanges: options.maxRanges,
  });
}
