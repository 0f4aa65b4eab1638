/**
 * Assembles the OpenAPI 3.1 document from the mounted route declarations: the same schemas that
 * validate requests describe them, so the document cannot drift from the behaviour.
 */
import type { JsonSchema, RouteAuth } from '@keel/plugin-sdk';
import { KERNEL_SECURITY_SCHEME, securitySchemesOf, type MountedRoute } from '../http/mount-routes.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  plugins: Array<{ id: string; version: string; description?: string }>;
}

type Operation = Record<string, unknown>;

export function buildOpenApi(routes: MountedRoute[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  const tagPlugins = new Map<string, Set<string>>();
  for (const mounted of routes) {
    const { route } = mounted;
    if (route.hidden) continue;
    const path = mounted.fullPath.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
    const auth = route.auth ?? 'user';
    // A route's resource tag is its section in /docs; a route that names none is listed under its plugin.
    const tags = route.tags?.length ? route.tags : [mounted.pluginId];
    for (const tag of tags) (tagPlugins.get(tag) ?? tagPlugins.set(tag, new Set()).get(tag)!).add(mounted.pluginId);
    const operation: Operation = {
      operationId: operationId(mounted),
      tags,
      summary: route.summary ?? `${route.method} ${mounted.fullPath}`,
      ...(route.description ? { description: route.description } : {}),
      parameters: [...parameters(route.params?.json, 'path'), ...parameters(route.query?.json, 'query')],
      responses: responses(mounted),
      security: security(auth),
    };
    if (auth === 'admin') operation['x-keel-admin'] = true;
    if (route.body) {
      const media = route.bodyKind === 'multipart' || route.bodyKind === 'multipart-stream' ? 'multipart/form-data' : route.bodyKind === 'raw' ? 'application/octet-stream' : 'application/json';
      // Swagger UI fills "Try it out" from the media type's example: the schema's first `examples` entry.
      const example = Array.isArray(route.body.json.examples) ? route.body.json.examples[0] : undefined;
      operation.requestBody = { required: true, content: { [media]: { schema: route.body.json, ...(example === undefined ? {} : { example }) } } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/' }],
    tags: [...tagPlugins].map(([name, pluginIds]) => ({ name, description: servedBy([...pluginIds], info.plugins) })),
    paths,
    // Swagger UI renders descriptions as Markdown: a code span keeps `<data>` from being read as an HTML tag.
    components: {
      securitySchemes: {
        [KERNEL_SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'A Keel token. The admin token is in `<data>/auth/admin.token` (`./data/auth/admin.token` by default), or is the value of `KEEL_ADMIN_TOKEN` when that was set at start. A browser signed in with `POST /api/gateway/session/login` sends its session cookie instead (unsafe methods with the `X-Keel-CSRF` header).' },
        // Plugins' own credentials (hub seat keys, ...), each under the name its authenticator gives.
        ...Object.fromEntries([...securitySchemesOf(routes)].map(([name, authenticator]) => [name, authenticator.scheme])),
      },
    },
  };
}

/** An operation's security requirement: none for public routes, the kernel's token, or the route's authenticator's scheme. */
function security(auth: RouteAuth): Array<Record<string, string[]>> {
  if (typeof auth === 'object') return [{ [auth.name]: [] }];
  return auth === 'public' || auth === 'none' ? [] : [{ [KERNEL_SECURITY_SCHEME]: [] }];
}

/** "From the gateway-runs plugin (v0.1.0): Durable runs ..." for a tag's section in /docs. */
function servedBy(pluginIds: string[], plugins: OpenApiInfo['plugins']): string {
  return pluginIds
    .map((id) => {
      const plugin = plugins.find((p) => p.id === id);
      return plugin ? `From the ${id} plugin (v${plugin.version})${plugin.description ? `: ${plugin.description}` : ''}` : `From the ${id} plugin`;
    })
    .join('. ');
}

function operationId(mounted: MountedRoute): string {
  const words = `${mounted.route.method.toLowerCase()} ${mounted.fullPath}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [mounted.pluginId, ...words].join('_');
}

function parameters(schema: JsonSchema | undefined, location: 'path' | 'query'): Array<Record<string, unknown>> {
  if (!schema) return [];
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(props).map(([name, prop]) => ({
    name,
    in: location,
    required: location === 'path' ? true : required.has(name),
    schema: prop,
    ...(typeof prop.description === 'string' ? { description: prop.description } : {}),
  }));
}

function responses(mounted: MountedRoute): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const declared = mounted.route.responses ?? {};
  for (const [status, spec] of Object.entries(declared)) {
    const contentType = spec.contentType ?? 'application/json';
    out[status] = {
      description: spec.description ?? 'OK',
      ...(spec.schema || spec.contentType ? { content: { [contentType]: spec.schema ? { schema: spec.schema.json } : {} } } : {}),
    };
  }
  if (Object.keys(out).length === 0) out['200'] = { description: 'OK' };
  const auth = mounted.route.auth ?? 'user';
  if (auth === 'user' || auth === 'admin') out['401'] ??= { description: 'Missing or invalid bearer token' };
  if (typeof auth === 'object') out['401'] ??= { description: `Missing or invalid credential (${auth.name})` };
  if (auth === 'admin') out['403'] ??= { description: 'Not an admin principal' };
  if (mounted.route.params || mounted.route.query || mounted.route.body) out['400'] ??= { description: 'Invalid request (the detail names the field)' };
  return out;
}
