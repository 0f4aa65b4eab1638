/** `GET /v1/models` and `GET /v1/models/{model}`: every model the caller can use, in OpenAI's shape. */
import { notFound, route, defineSchema } from '@keel/plugin-sdk';
import type { InferenceService } from '../inference-service.js';
import type { ModelInfo } from '../providers/provider.js';
import { echoId } from '../echo-id.js';
import { modelListResponse, modelResponse } from './openai-responses.js';

const STARTED = Math.floor(Date.now() / 1000);

function wire(model: ModelInfo) {
  return { id: model.id, object: 'model', created: STARTED, owned_by: model.provider };
}

export function modelsRoutes(service: InferenceService) {
  return [
    route({
      method: 'GET',
      path: '/models',
      mount: 'openai',
      tags: ['openai'],
      summary: 'Models the caller can use',
      responses: { 200: { schema: modelListResponse } },
      handler: async ({ principal }) => ({ object: 'list', data: (await service.listModels(principal.account)).map(wire) }),
    }),
    route({
      method: 'GET',
      path: '/models/*model',
      mount: 'openai',
      tags: ['openai'],
      summary: 'One model',
      responses: { 200: { schema: modelResponse } },
      params: defineSchema({ type: 'object', required: ['model'], properties: { model: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } }),
      handler: async ({ params, principal }) => {
        const id = Array.isArray(params.model) ? params.model.join('/') : params.model;
        const target = await service.resolve(principal.account, id, 'chat').catch(() => null);
        const info = target && (await target.provider.findModel(target.model));
        if (!info) throw notFound(`The model '${echoId(id)}' does not exist.`, { code: 'model_not_found', field: 'params.model' });
        return wire(info);
      },
    }),
  ];
}
