/** Health, self-description and host state: `/api/health`, `/api/gateway/about`, `/api/gateway/host/runner`. */
import { route, schema, SDK_VERSION } from '@keel/plugin-sdk';
import type { CoreContext } from './core-context.js';

const healthSchema = schema<unknown>({
  type: 'object',
  required: ['status', 'runner', 'watchdog'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    runner: { type: 'string', enum: ['enabled', 'disabled'] },
    watchdog: {
      type: 'object',
      required: ['enabled', 'limit_s', 'last_tick_age_s'],
      properties: { enabled: { type: 'boolean' }, limit_s: { type: 'number' }, last_tick_age_s: { type: ['number', 'null'] } },
    },
  },
});

const aboutSchema = schema<unknown>({
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

const lastHangSchema = schema<unknown>({
  type: 'object',
  required: ['last_hang'],
  properties: {
    last_hang: {
      type: ['object', 'null'],
      properties: {
        at: { type: 'string' }, process: { type: 'string' }, blocked_s: { type: 'number' }, reason: { type: 'string' }, top_frame: { type: ['string', 'null'] },
        dump_path: { type: ['string', 'null'] }, file: { type: ['string', 'null'] }, line: { type: ['integer', 'null'] },
      },
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
      summary: 'Liveness, runner mode and the event-loop watchdog',
      responses: { 200: { schema: healthSchema } },
      handler: () => ({ status: 'ok', runner: core.host.runner ? 'enabled' : 'disabled', watchdog: core.watchdog.status() }),
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
    route({
      method: 'GET',
      path: '/api/gateway/host/runner',
      auth: 'admin',
      tags: ['host'],
      summary: 'The last event-loop hang the watchdog recorded',
      responses: { 200: { schema: lastHangSchema } },
      handler: () => ({ last_hang: core.watchdog.lastHang() }),
    }),
  ];
}
