/** `POST /v1/embeddings`: vectors for one or many texts, as floats or base64. */
import { badRequest, route, type RouteContext } from '@keel/plugin-sdk';
import type { InferenceService } from '../inference-service.js';
import type { CallRecorder } from './call-recorder.js';
import { embeddingResponse } from './openai-responses.js';
import { embeddingBody } from './openai-schemas.js';

export function embeddingsRoute(service: InferenceService, recorder: CallRecorder) {
  return route({
    method: 'POST',
    path: '/embeddings',
    mount: 'openai',
    tags: ['openai'],
    summary: 'Embeddings (OpenAI-compatible)',
    body: embeddingBody,
    responses: { 200: { schema: embeddingResponse } },
    handler: (ctx) =>
      recorder.record(ctx as RouteContext<unknown, unknown, unknown>, '/v1/embeddings', false, async (note) => {
        const { body, principal } = ctx;
        const inputs = typeof body.input === 'string' ? [body.input] : body.input;
        if (inputs.some((i) => typeof i !== 'string')) throw badRequest('Token-id input is not supported; send text.', { code: 'unsupported_parameter', field: 'body.input' });
        service.limits.inputs(inputs as string[]);
        const target = await service.resolve(principal.account, body.model, 'embedding');
        note.model = target.id;
        note.provider = target.provider.info.name;
        const out = await service.embedOn(target, inputs as string[], { signal: ctx.signal });
        const width = out.vectors[0]?.length ?? 0;
        if (body.dimensions !== undefined && body.dimensions !== width) {
          throw badRequest(`The model '${body.model}' makes ${width}-dimensional vectors; dimensions=${body.dimensions} is not supported.`, { code: 'unsupported_parameter', field: 'body.dimensions' });
        }
        note.prompt_tokens = out.usage?.prompt_tokens ?? null;
        return {
          object: 'list',
          data: out.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: body.encoding_format === 'base64' ? toBase64(vector) : vector })),
          model: body.model,
          usage: out.usage ?? { prompt_tokens: 0, total_tokens: 0 },
        };
      }),
  });
}

/** OpenAI's base64 encoding: the little-endian float32 bytes of the vector. */
function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}
