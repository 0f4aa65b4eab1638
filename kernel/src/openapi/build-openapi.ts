/**
 * Assembles the OpenAPI 3.1 document from the mounted route declarations: the same schemas that
 * validate requests describe them, so the document cannot drift from the behaviour.
 */
import type { JsonSchema } from '@keel/plugin-sdk';
import type { MountedRoute } from '../http/mount-routes.js';

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  plugins: Array<{ id: string; version: string; description?: string }>;
}

type Operation = Record<string, unknown>;

export function buildOpenApi(routes: MountedRoute[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const mounted of routes) {
    const { route } = mounted;
    if (route.hidden) continue;
    const path = mounted.fullPath.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
    const auth = route.auth ?? 'user';
    const operation: Operation = {
      operationId: operationId(mounted),
      tags: route.tags ?? [mounted.pluginId],
      summary: route.summary ?? `${route.method} ${mounted.fullPath}`,
      ...(route.description ? { description: route.description } : {}),
      parameters: [...parameters(route.params?.json, 'path'), ...parameters(route.query?.json, 'query')],
      responses: responses(mounted),
      security: auth === 'public' || auth === 'none' ? [] : [{ bearerAuth: [] }],
    };
    if (auth === 'admin') operation['x-keel-admin'] = true;
    if (route.body) {
      const media = route.bodyKind === 'multipart' ? 'multipart/form-data' : route.bodyKind === 'raw' ? 'application/octet-stream' : 'application/json';
      operation.requestBody = { required: true, content: { [media]: { schema: route.body.json } } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: '/' }],
    tags: info.plugins.map((p) => ({ name: p.id, description: `${p.description ?? p.id} (v${p.version})` })),
    paths,
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'A Keel token (the admin token is in <data>/auth/admin.token).' } } },
  };
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
  if (auth === 'admin') out['403'] ??= { description: 'Not an admin principal' };
  if (mounted.route.params || mounted.route.query || mounted.route.body) out['400'] ??= { description: 'Invalid request (the detail names the field)' };
  return out;
}
