/** Health and self-description: `/api/health` (with the fields plugins add) and `/api/gateway/about`. */
import { defineSchema, route, SDK_VERSION } from '@keel/plugin-sdk';
import type { CoreContext } from './core-context.js';

/** The fields the kernel reports itself; plugins add others (`PluginInstance.health`). */
export const HEALTH_FIELDS = ['status', 'watchdog'] as const;

const healthSchema = defineSchema({
  type: 'object',
  required: HEALTH_FIELDS,
  additionalProperties: true,
  properties: {
    status: { type: 'string', enum: ['ok'] },
    watchdog: {
      type: 'object',
      required: ['enabled', 'limit_s', 'last_tick_age_s'],
      properties: { enabled: { type: 'boolean' }, limit_s: { type: 'number' }, last_tick_age_s: { type: ['number', 'null'] } },
    },
  },
});

const aboutSchema = defineSchema({
  type: 'object',
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    sdk_version: { type: 'string' },
    node_version: { type: 'string' },
    plugins: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string' }, version: { type: 'string' }, description: { type: 'string' }, source: { type: 'string' }, prefix: { type: 'string' },
        pages: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, title: { type: 'string' } } } } } },
    },
  },
});

export function healthRoutes(core: CoreContext) {
  return [
    route({
      method: 'GET',
      path: '/api/health',
      auth: 'public',
      tags: ['health'],
      summary: 'Liveness, the event-loop watchdog and the fields the loaded plugins add',
      responses: { 200: { schema: healthSchema } },
      handler: () => ({ status: 'ok', ...core.health(), watchdog: core.watchdog.status() }),
    }),
    route({
      method: 'GET',
      path: '/api/gateway/about',
      auth: 'public',
      tags: ['health'],
      summary: 'Versions of the kernel and of every loaded plugin',
      responses: { 200: { schema: aboutSchema } },
      handler: () => ({
        name: 'keel',
        version: core.host.kernelVersion,
        sdk_version: SDK_VERSION,
        node_version: process.version,
        plugins: core.plugins(),
      }),
    }),
  ];
}
