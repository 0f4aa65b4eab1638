/**
 * Local engines: `GET /engines`, `GET /engines/{engine}` (signed-in callers; no file paths) and
 * `POST /engines/{engine}/load|unload` (admin: open or close a model ahead of use).
 */
import { badRequest, defineSchema, notFound, route, serviceUnavailable } from '@keel/plugin-sdk';
import type { LocalProvider } from '../providers/local-provider.js';
import { echoId } from '../echo-id.js';
import { ENGINE_NAMES, type EngineName, type EngineStatus } from './engine-status.js';

const engineParams = defineSchema({ type: 'object', required: ['engine'], properties: { engine: { type: 'string', minLength: 1, maxLength: 64 } } });
const residencyBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['model'],
  properties: { model: { type: 'string', minLength: 1, maxLength: 512 } },
});

const engineObject = {
  type: 'object',
  required: ['engine', 'label', 'runtime', 'available', 'unavailable_reason', 'formats', 'kinds', 'residency', 'workers', 'loaded', 'models'],
  properties: {
    engine: { type: 'string' },
    label: { type: 'string' },
    runtime: { type: 'string' },
    available: { type: 'boolean' },
    unavailable_reason: { type: ['string', 'null'] },
    formats: { type: 'array', items: { type: 'string' } },
    kinds: { type: 'array', items: { type: 'string' } },
    residency: { type: 'boolean' },
    workers: { type: 'object', properties: { max: { type: 'integer' }, live: { type: 'integer' }, queued: { type: 'integer' } } },
    loaded: { anyOf: [{ type: 'null' }, { type: 'array', items: { type: 'string' } }] },
    models: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'state'],
        properties: { id: { type: 'string' }, state: { type: 'string', enum: ['loaded', 'available', 'missing', 'downloading'] }, context_length: { type: ['integer', 'null'] } },
      },
    },
  },
} as const;
const engineSchema = defineSchema(engineObject);
const residencySchema = defineSchema({
  type: 'object',
  required: ['engine', 'model', 'action', 'changed', 'loaded'],
  properties: { engine: { type: 'string' }, model: { type: 'string' }, action: { type: 'string' }, changed: { type: 'boolean' }, loaded: { type: 'array', items: { type: 'string' } } },
});

function engineOf(name: string): EngineName {
  if ((ENGINE_NAMES as readonly string[]).includes(name)) return name as EngineName;
  throw notFound(`The engine '${echoId(name)}' does not exist; engines are ${ENGINE_NAMES.join(', ')}.`, { code: 'engine_not_found' });
}

export function engineRoutes(status: EngineStatus, local: LocalProvider) {
  const residency = (action: 'load' | 'unload') =>
    route({
      method: 'POST',
      path: `/engines/:engine/${action}`,
      auth: 'admin',
      tags: ['engines'],
      summary: action === 'load' ? 'Open a model in the engine ahead of use' : 'Close a model the engine holds open',
      params: engineParams,
      body: residencyBody,
      responses: { 200: { schema: residencySchema } },
      handler: async ({ params, body }) => {
        const engine = engineOf(params.engine);
        const spec = status.spec(engine);
        if (!spec.residency) {
          throw badRequest(`The ${spec.label} engine opens a model on its first call and keeps it; load and unload apply to the llama engine.`, { code: 'residency_unsupported', field: 'params.engine' });
        }
        const unavailable = status.unavailableReason(engine);
        if (unavailable) throw serviceUnavailable(unavailable, { code: 'engine_unavailable' });
        const name = body.model.startsWith('local/') ? body.model.slice('local/'.length) : body.model;
        if (name.includes('/')) throw badRequest(`The model '${echoId(body.model)}' is not a local model; engines run local/<name> models.`, { code: 'model_not_local', field: 'body.model' });
        const result = await local.residency(action, name);
        return { engine, model: `local/${name}`, action, changed: result.changed, loaded: result.loaded.map((n) => `local/${n}`) };
      },
    });
  return [
    route({
      method: 'GET',
      path: '/engines',
      tags: ['engines'],
      summary: 'The local engines: availability, workers, models and which are loaded',
      responses: { 200: { schema: defineSchema({ type: 'object', required: ['engines'], properties: { engines: { type: 'array', items: engineObject } } }) } },
      handler: async () => ({ engines: await Promise.all(ENGINE_NAMES.map((e) => status.view(e))) }),
    }),
    route({
      method: 'GET',
      path: '/engines/:engine',
      tags: ['engines'],
      summary: 'One local engine',
      params: engineParams,
      responses: { 200: { schema: engineSchema } },
      handler: async ({ params }) => status.view(engineOf(params.engine)),
    }),
    residency('load'),
    residency('unload'),
  ];
}
