/**
 * The team page, served by the hub: `GET /ui` redirects to `/ui/`, which is the page's index.html;
 * `GET /ui/*path` serves its modules and styles and the hub client's modules under `/ui/client/`.
 * The page is static and public (it holds no secret; the seat key is pasted into it), so these
 * routes do no authentication. Every answer carries nosniff and a short cache lifetime; the page
 * itself carries a Content-Security-Policy that allows only its own files and its import map (and
 * `blob:` images: attachment bytes fetched with the seat key and shown inline when raster).
 */
import { createHash } from 'node:crypto';
import { HANDLED, notFound, route, schema, type AnyRoute, type RouteContext } from '@keel/plugin-sdk';
import { UiFiles, type UiFile } from './ui-files.js';

type KoaContext = RouteContext<unknown, unknown, unknown>['koa'];

const ASSET_CACHE = 'public, max-age=60';
const PAGE_CACHE = 'no-cache';

/** `'sha256-…'` sources for the inline scripts (the import map) of a page. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)]
    .filter((m) => !/\bsrc\s*=/i.test(m[0].slice(0, m[0].indexOf('>'))) && m[1]!.length > 0)
    .map((m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
}

function pagePolicy(html: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${inlineScriptHashes(html).join(' ')}`.trim(),
    "style-src 'self'",
    "connect-src 'self'",
    // blob: for attachment images, which the page fetches with the seat key (an <img> cannot send it).
    "img-src 'self' data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(koa: KoaContext, file: UiFile): typeof HANDLED {
  const isPage = file.relative === 'index.html';
  koa.set('X-Content-Type-Options', 'nosniff');
  koa.set('Cache-Control', isPage ? PAGE_CACHE : ASSET_CACHE);
  koa.set('Last-Modified', file.mtime.toUTCString());
  koa.set('ETag', `W/"${file.bytes.length.toString(16)}-${Math.floor(file.mtime.getTime()).toString(16)}"`);
  if (isPage) {
    koa.set('Content-Security-Policy', pagePolicy(file.bytes.toString('utf8')));
    koa.set('Referrer-Policy', 'no-referrer');
  }
  koa.status = 200;
  if (koa.fresh) {
    koa.status = 304;
    return HANDLED;
  }
  koa.type = file.contentType;
  koa.body = file.bytes;
  return HANDLED;
}

async function serve(files: UiFiles, koa: KoaContext, relative: string): Promise<typeof HANDLED> {
  const file = await files.read(relative);
  if (!file) {
    koa.set('X-Content-Type-Options', 'nosniff');
    throw notFound(`no team page file at 'ui/${relative}'`);
  }
  return send(koa, file);
}

/**
 * The team page routes. `prefix` is the hub's mount prefix (`/hub`) for the `/ui` redirect; without
 * it the redirect is relative (`ui/`), which browsers resolve under any mount or proxy prefix.
 */
export function uiRoutes(prefix?: string, files: UiFiles = new UiFiles()): AnyRoute[] {
  const target = prefix === undefined ? 'ui/' : `${prefix.replace(/\/+$/, '')}/ui/`;
  return [
    route({
      method: 'GET',
      path: '/ui',
      auth: 'none',
      tags: ['hub'],
      summary: 'The team page (GET /ui/ serves it; GET /ui redirects there)',
      responses: { 200: { contentType: 'text/html' }, 302: { description: 'to /ui/' } },
      handler: ({ koa }) => {
        // The router treats a trailing slash as optional, so `/ui/` arrives here too.
        if (koa.path.endsWith('/')) return serve(files, koa, 'index.html');
        koa.set('Cache-Control', PAGE_CACHE);
        koa.redirect(target);
        return HANDLED;
      },
    }),
    route({
      method: 'GET',
      path: '/ui/*path',
      auth: 'none',
      hidden: true,
      params: schema<{ path: string | string[] }>({ type: 'object', properties: { path: {} } }),
      handler: ({ params, koa }) => serve(files, koa, Array.isArray(params.path) ? params.path.join('/') : params.path),
    }),
  ] as AnyRoute[];
}
