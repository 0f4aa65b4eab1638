/**
 * `GET /`: the page a new user meets at the address `keel serve` prints. It says what is loaded and
 * links to the docs and to the pages plugins declare (`PluginInstance.pages`); it never shows a
 * token or a real path. Static HTML with no script, so its CSP allows nothing but its own style.
 */
import escapeHtml from 'escape-html';
import { HANDLED, route } from '@keel/plugin-sdk';
import type { CoreContext, LoadedPluginInfo } from './core-context.js';

const LANDING_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f2f2f2;padding:0 .25rem;border-radius:3px}table{border-collapse:collapse}td,th{text-align:left;padding:.2rem .8rem .2rem 0}`;

export function landingRoutes(core: CoreContext) {
  return [
    route({
      method: 'GET',
      path: '/',
      auth: 'public',
      hidden: true,
      handler: ({ koa }) => {
        koa.set(LANDING_HEADERS);
        koa.type = 'text/html; charset=utf-8';
        koa.body = landingHtml(core.host.kernelVersion, core.plugins());
        return HANDLED;
      },
    }),
  ];
}

function landingHtml(kernelVersion: string, plugins: LoadedPluginInfo[]): string {
  const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
  const pages = [
    link('/docs', 'API docs (/docs)'),
    link('/openapi.json', 'OpenAPI 3.1 (/openapi.json)'),
    ...plugins.flatMap((p) => p.pages.map((page) => `${link(page.path, `${page.title} (${page.path})`)} <small>from ${escapeHtml(p.id)}</small>`)),
  ];
  const rows = plugins
    .map((p) => `<tr><td><code>${escapeHtml(p.id)}</code></td><td>${escapeHtml(p.version)}</td><td><code>${escapeHtml(p.prefix)}</code></td><td>${escapeHtml(p.description)}</td></tr>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Keel</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Keel ${escapeHtml(kernelVersion)}</h1>
<p>A microkernel host for durable AI workflows. This server is running.</p>
<h2>Pages</h2>
<ul>
${pages.map((item) => `<li>${item}</li>`).join('\n')}
</ul>
<h2>The admin token</h2>
<p>Most routes need a bearer token. At first start Keel writes the admin token to
<code>&lt;data&gt;/auth/admin.token</code> (<code>./data/auth/admin.token</code> with the default settings),
unless <code>KEEL_ADMIN_TOKEN</code> was set when the server started; then that value is the token.
Send it as <code>Authorization: Bearer &lt;token&gt;</code>, or paste it into <b>Authorize</b> on ${link('/docs', '/docs')}.</p>
<h2>Loaded plugins</h2>
<table>
<tr><th>plugin</th><th>version</th><th>mounted at</th><th>what</th></tr>
${rows}
</table>
<p>${link('/api/gateway/about', '/api/gateway/about')} gives the same list as JSON; ${link('/api/health', '/api/health')} the server's health.</p>
</body>
</html>
`;
}
