/**
 * A handler answers with a file: `return sendFile(koa, {root, file})`. Conditional requests
 * (If-None-Match, If-Modified-Since → 304), single byte ranges (206 with Content-Range, 416 when
 * unsatisfiable; several ranges get the whole file), HEAD without reading, nosniff, and by default
 * `Content-Security-Policy: sandbox` and an attachment Content-Disposition, because the files a
 * plugin replies with are usually user content that must never run on the server's origin.
 */
import path from 'node:path';
import { create as contentDisposition } from 'content-disposition';
import etag from 'etag';
import { contentType as contentTypeOf } from 'mime-types';
import parseRange from 'range-parser';
import type Koa from 'koa';
import { HttpError, notFound } from '../errors.js';
import { HANDLED } from '../routes.js';
import { openConfinedFile, type ConfinedFile } from './confined-file.js';

export const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

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
}

/** How a file is written once it is open: shared by `sendFile` and `staticFolder`. */
export interface WriteFileOptions {
  contentType: string;
  cacheControl: string;
  csp: string | null;
  disposition?: string;
  etag?: string;
  headers?: Record<string, string>;
}

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
      // A malformed header (-2), another unit or several ranges: the whole file, as RFC 9110 allows.
      if (ranges !== -2 && ranges.type === 'bytes' && ranges.length === 1) {
        start = ranges[0]!.start;
        end = ranges[0]!.end;
        koa.status = 206;
        koa.set('Content-Range', `bytes ${start}-${end}/${stats.size}`);
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
    koa.body = handle.createReadStream({ start, end, autoClose: true });
    koa.length = length;
    streaming = true;
    return HANDLED;
  } finally {
    if (!streaming) await handle.close();
  }
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
  });
}
