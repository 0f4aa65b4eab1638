/**
 * `/openapi.json` and the interactive `/docs` page. The UI is swagger-ui-dist served from the
 * installed package (no CDN); its Authorize control takes a bearer token.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineSchema, HANDLED, route, staticFolder } from '@keel/plugin-sdk';
import type { CoreContext } from './core-context.js';

const UI_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files of swagger-ui-dist the page loads; nothing else of the package is served. */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);

const INDEX_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Keel API</title>
<link rel="icon" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/keel-init.js"></script>
</body>
</html>
`;

const INIT_JS = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

/**
 * The docs page loads only its own files and fetches only /openapi.json; it may not be framed
 * (clickjacking the Authorize control). Swagger UI sets inline styles and shows data: images.
 */
const DOCS_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export function docsRoutes(core: CoreContext) {
  return [
    route({
      method: 'GET',
      path: '/openapi.json',
      auth: 'public',
      tags: ['docs'],
      summary: 'This API described as OpenAPI 3.1 (every route of every loaded plugin)',
      responses: { 200: { schema: defineSchema({ type: 'object' }) } },
      handler: () => core.openApi(),
    }),
    route({
      method: 'GET',
      path: '/docs',
      auth: 'public',
      hidden: true,
      handler: ({ koa }) => {
        koa.set(DOCS_HEADERS);
        koa.type = 'text/html; charset=utf-8';
        koa.body = INDEX_HTML;
        return HANDLED;
      },
    }),
    // Before the folder: of two routes matching a path, the router takes the one with fewer parameters.
    route({
      method: 'GET',
      path: '/docs/keel-init.js',
      auth: 'public',
      hidden: true,
      handler: ({ koa }) => {
        koa.set(DOCS_HEADERS);
        koa.type = 'text/javascript; charset=utf-8';
        koa.body = INIT_JS;
        return HANDLED;
      },
    }),
    ...staticFolder({
      path: '/docs',
      root: UI_DIR,
      index: false,
      allow: (file) => ASSETS.has(file),
      cacheControl: 'public, max-age=3600',
      headers: DOCS_HEADERS,
    }),
  ];
}
