/**
 * The status page, served with the SDK's `staticFolder` on the `ui` mount (`/relay` by default):
 * `GET /relay/ui` redirects to `/relay/ui/`, which is `ui/index.html`; `GET /relay/ui/*` serves its
 * compiled modules (`ui/dist/*.js`), styles and icon, nothing else of the folder (no sources, no
 * maps). The page is static and public: it holds no secret (the relay token is pasted into it and
 * sent only to `/v1/relay/*` on the same origin). Its Content-Security-Policy allows only its own
 * files: no inline script or style, no other origin, no framing, no form posts.
 */
import { fileURLToPath } from 'node:url';
import { HANDLED, route, staticFolder, type AnyRoute, type StaticFile } from '@keel/plugin-sdk';

export const UI_MOUNT = 'ui';
export const UI_PAGE_PATH = '/ui/';

const PAGE = 'index.html';
const FAVICON = 'favicon.svg';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** An SVG opened on its own is a document of this origin: it may run nothing and load nothing. */
const IMAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

/** The page's folder in the installed package (`<package>/ui`, beside `dist/`). */
export function defaultUiRoot(): string {
  return fileURLToPath(new URL('../../ui', import.meta.url));
}

/** A file the page loads: the page, its icon, its compiled modules and its styles. */
export function isPageFile(relative: string): boolean {
  if (relative === PAGE || relative === FAVICON) return true;
  if (relative.startsWith('dist/')) return relative.endsWith('.js');
  return relative.startsWith('styles/') && relative.endsWith('.css');
}

function policyOf(file: StaticFile): string | undefined {
  if (file.relative === PAGE) return PAGE_POLICY;
  return file.relative === FAVICON ? IMAGE_POLICY : undefined;
}

/**
 * The status page routes, on the `ui` mount. `apiBase` is where the relay's `/v1` routes are mounted
 * (the config may move it): the page reads it from `GET /relay/ui/api.json`.
 */
export function uiRoutes(apiBase: string, root: string | (() => string) = defaultUiRoot): AnyRoute[] {
  const apiJson = route({
    method: 'GET',
    path: '/ui/api.json',
    mount: UI_MOUNT,
    auth: 'public',
    hidden: true,
    handler: ({ koa }) => {
      koa.set({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
      koa.body = { api_base: apiBase };
      return HANDLED;
    },
  }) as AnyRoute;
  // First: of two routes matching a path, the router takes the one registered first.
  return [apiJson, ...staticFolder({
    path: '/ui',
    root,
    index: PAGE,
    types: CONTENT_TYPES,
    allow: isPageFile,
    cacheControl: (relative) => (relative === PAGE ? 'no-cache' : 'public, max-age=60'),
    csp: policyOf,
    headers: { 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' },
    auth: 'public',
    tags: ['relay'],
    summary: 'The relay status page (GET /relay/ui/ serves it; GET /relay/ui redirects there)',
  }).map((r) => ({ ...r, mount: UI_MOUNT }))];
}
