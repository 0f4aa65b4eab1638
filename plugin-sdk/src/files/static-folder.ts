/**
 * Routes that serve a folder: `GET <path>/<file>` answers the file, `GET <path>/` the index file
 * and `GET <path>` redirects there. Every file is opened through `openConfinedFile` (no way out
 * of the folder, no dotfiles, regular files only) and written by `writeFileReply` (ETag and
 * Last-Modified with 304, Range, HEAD, nosniff), with the folder's cache policy and CSP.
 */
import path from 'node:path';
import { contentType as contentTypeOf } from 'mime-types';
import type Koa from 'koa';
import { notFound } from '../errors.js';
import { HANDLED, route, type AnyRoute, type RouteAuth } from '../routes.js';
import { defineSchema } from '../schema.js';
import { openConfinedFile, readWhole, type ConfinedFile } from './confined-file.js';
import { FALLBACK_CONTENT_TYPE, writeFileReply } from './file-reply.js';

/** A file about to be served, for per-file policies. */
export interface StaticFile {
  /** The path inside the folder (`index.html`, `dist/main.js`). */
  relative: string;
  size: number;
  mtime: Date;
  /** Its bytes, read from the opened file (for a policy computed from a small page). */
  read(): Promise<Buffer>;
}

export interface StaticFolderOptions {
  /** Where the folder is mounted, under the plugin's prefix (`/ui`). */
  path: string;
  /** The folder; a function is called at the first request (to resolve an installed package late). */
  root: string | (() => string);
  /** Served at `<path>/` (and `<path>` redirects there); default `index.html`; `false` for none. */
  index?: string | false;
  /** Extension → Content-Type. When given, only these extensions are served; default `mime-types`. */
  types?: Record<string, string>;
  /** Refuses (404) any file this returns false for. */
  allow?: (relative: string) => boolean;
  /** Default `public, max-age=300` for files and `no-cache` for the index file. */
  cacheControl?: string | ((relative: string) => string);
  /** A Content-Security-Policy for every file of the folder, or per file. */
  csp?: string | ((file: StaticFile) => string | undefined | Promise<string | undefined>);
  /** More headers on every file (`X-Frame-Options`, `Referrer-Policy`, ...). */
  headers?: Record<string, string>;
  /** Default `public` (no token); `none` for a plugin that authenticates callers itself. */
  auth?: RouteAuth;
  tags?: string[];
  /** Shown in OpenAPI for `GET <path>`; the per-file route is always hidden. */
  summary?: string;
}

const FILE_CACHE = 'public, max-age=300';
const INDEX_CACHE = 'no-cache';

export function staticFolder(options: StaticFolderOptions): AnyRoute[] {
  const base = options.path.replace(/\/+$/, '');
  const index = options.index === undefined ? 'index.html' : options.index;
  let root: string | null = null;
  const rootOf = () => (root ??= typeof options.root === 'string' ? options.root : options.root());

  const typeOf = (relative: string): string | null => {
    const ext = path.extname(relative).toLowerCase();
    if (options.types) return options.types[ext] ?? null;
    return contentTypeOf(ext) || FALLBACK_CONTENT_TYPE;
  };

  async function serve(koa: Koa.Context, relative: string): Promise<typeof HANDLED> {
    const contentType = typeOf(relative);
    const file = contentType && (!options.allow || options.allow(relative)) ? await openConfinedFile(rootOf(), relative) : null;
    if (!file || !contentType) throw notFound(`No file '${relative}' here.`, { code: 'not_found' });
    let csp: string | undefined;
    try {
      csp = typeof options.csp === 'function' ? await options.csp(staticFile(file, relative)) : options.csp;
    } catch (err) {
      await file.handle.close();
      throw err;
    }
    const cacheControl = typeof options.cacheControl === 'function' ? options.cacheControl(relative)
      : options.cacheControl ?? (relative === index ? INDEX_CACHE : FILE_CACHE);
    return writeFileReply(koa, file, { contentType, cacheControl, csp: csp ?? null, headers: options.headers });
  }

  const routes: AnyRoute[] = [];
  if (index) {
    const name = base.slice(base.lastIndexOf('/') + 1);
    routes.push(route({
      method: 'GET',
      path: base,
      auth: options.auth ?? 'public',
      tags: options.tags,
      summary: options.summary,
      hidden: options.summary === undefined,
      responses: { 200: { contentType: typeOf(index) ?? FALLBACK_CONTENT_TYPE }, 302: { description: `to ${base}/` } },
      handler: ({ koa }) => {
        // The router treats a trailing slash as optional, so `<path>/` arrives here too.
        if (koa.path.endsWith('/')) return serve(koa, index);
        koa.set('Cache-Control', INDEX_CACHE);
        // Relative, so it resolves under any mount or proxy prefix.
        koa.redirect(`${name}/`);
        return HANDLED;
      },
    }) as AnyRoute);
  }
  routes.push(route({
    method: 'GET',
    path: `${base}/*file`,
    auth: options.auth ?? 'public',
    hidden: true,
    params: defineSchema({ type: 'object', properties: { file: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } }),
    handler: ({ params, koa }) => serve(koa, Array.isArray(params.file) ? params.file.join('/') : String(params.file)),
  }) as AnyRoute);
  return routes;
}

function staticFile(file: ConfinedFile, relative: string): StaticFile {
  return { relative, size: file.stats.size, mtime: file.stats.mtime, read: () => readWhole(file) };
}
