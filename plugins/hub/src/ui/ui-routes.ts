/**
 * The team page, served by the hub with the SDK's `staticFolder`: `GET /ui` redirects to `/ui/`,
 * which is the page's index.html; `GET /ui/*` serves its modules and styles, and `/ui/client/*`
 * the hub client's compiled modules. The page is static and public (it holds no secret; the seat
 * key is pasted into it), so these routes do no authentication. Every answer carries nosniff and a
 * short cache lifetime; the page itself carries a Content-Security-Policy that allows only its own
 * files and its import map (and `blob:` images: attachment bytes fetched with the seat key and
 * shown inline when raster).
 */
import { createHash } from 'node:crypto';
import { staticFolder, type AnyRoute, type StaticFile } from '@keel/plugin-sdk';
import { CONTENT_TYPES, defaultUiRoots, FAVICON, isClientFile, isPageFile, type UiRoots } from './ui-files.js';

const ASSET_CACHE = 'public, max-age=60';
const PAGE_CACHE = 'no-cache';
const PAGE = 'index.html';

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

/** An SVG opened on its own is a document of this origin: it may run nothing and load nothing. */
const IMAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

/** The page's policy is computed from the page as served (its import map's hash); the icon gets a closed one; other files need none. */
async function policyOf(file: StaticFile): Promise<string | undefined> {
  if (file.relative === PAGE) return pagePolicy((await file.read()).toString('utf8'));
  return file.relative === FAVICON ? IMAGE_POLICY : undefined;
}

/** The team page routes; `locate` finds the two package folders (at the first request). */
export function uiRoutes(locate: () => UiRoots = defaultUiRoots): AnyRoute[] {
  let roots: UiRoots | null = null;
  const rootsOnce = () => (roots ??= locate());
  return [
    // First: of two routes matching a path, the router takes the one registered first.
    ...staticFolder({
      path: '/ui/client',
      root: () => rootsOnce().client,
      index: false,
      types: CONTENT_TYPES,
      allow: isClientFile,
      cacheControl: ASSET_CACHE,
      headers: { 'referrer-policy': 'no-referrer' },
      auth: 'none',
    }),
    ...staticFolder({
      path: '/ui',
      root: () => rootsOnce().page,
      index: PAGE,
      types: CONTENT_TYPES,
      allow: isPageFile,
      cacheControl: (relative) => (relative === PAGE ? PAGE_CACHE : ASSET_CACHE),
      csp: policyOf,
      headers: { 'referrer-policy': 'no-referrer' },
      auth: 'none',
      tags: ['hub'],
      summary: 'The team page (GET /ui/ serves it; GET /ui redirects there)',
    }),
  ];
}
