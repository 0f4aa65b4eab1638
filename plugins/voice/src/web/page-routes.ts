/**
 * The speak-and-listen page, served with the SDK's `staticFolder` at `<mount>/ui/` (`/voice/ui/`):
 * `ui/index.html`, its compiled modules (`ui/dist/*.js`), styles and icon, nothing else of the
 * folder. The page is static and public: it holds no secret (the gateway token is pasted into it
 * and sent only to this plugin's routes on the same origin, each of which needs it). Its
 * Content-Security-Policy allows only its own files, the microphone's audio as blob: media, and
 * no other origin.
 */
import { fileURLToPath } from 'node:url';
import { staticFolder, type AnyRoute, type StaticFile } from '@keel/plugin-sdk';

export const PAGE_PATH = '/ui/';

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
  // Spoken audio and recordings play from blob: URLs the page makes.
  "media-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const IMAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'";

/** The page's folder in the installed package (`<package>/ui`, beside `dist/`). */
export function defaultPageRoot(): string {
  return fileURLToPath(new URL('../../ui', import.meta.url));
}

export function isPageFile(relative: string): boolean {
  if (relative === PAGE || relative === FAVICON) return true;
  if (relative.startsWith('dist/')) return relative.endsWith('.js');
  return relative.startsWith('styles/') && relative.endsWith('.css');
}

function policyOf(file: StaticFile): string | undefined {
  if (file.relative === PAGE) return PAGE_POLICY;
  return file.relative === FAVICON ? IMAGE_POLICY : undefined;
}

export function pageRoutes(root: string | (() => string) = defaultPageRoot): AnyRoute[] {
  return staticFolder({
    path: '/ui',
    root,
    index: PAGE,
    types: CONTENT_TYPES,
    allow: isPageFile,
    cacheControl: (relative) => (relative === PAGE ? 'no-cache' : 'public, max-age=60'),
    csp: policyOf,
    // The page asks for the microphone itself; nothing framed may.
    headers: { 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY', 'permissions-policy': 'microphone=(self)' },
    auth: 'public',
    tags: ['voice'],
    summary: 'The speak-and-listen page (GET /voice/ui/ serves it; GET /voice/ui redirects there)',
  });
}
