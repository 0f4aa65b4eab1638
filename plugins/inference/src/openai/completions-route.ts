/** `POST /v1/completions`: plain-text completion, JSON or streamed. */
import { badRequest, HANDLED, route, type RouteContext } from '@keel/plugin-sdk';
import type { InferenceService } from '../inference-service.js';
import { completionId, unixNow, type CallRecorder } from './call-recorder.js';
import { wireFinish } from './chat-completions-route.js';
import { ChunkStream } from './chunk-stream.js';
import { streamError } from './error-body.js';
import { completionResponse } from './openai-responses.js';
import { completionBody } from './openai-schemas.js';
import { generationParams } from './to-generation-params.js';

export function completionsRoute(service: InferenceService, recorder: CallRecorder) {
  return route({
    method: 'POST',
    path: '/completions',
    mount: 'openai',
    tags: ['openai'],
    summary: 'Text completion (OpenAI-compatible; `stream: true` for SSE chunks)',
    body: completionBody,
    responses: { 200: { schema: completionResponse, description: 'The completion; with `stream: true`, an event stream of chunks instead' } },
    handler: (ctx) =>
      recorder.record(ctx as RouteContext<unknown, unknown, unknown>, '/v1/completions', ctx.body.stream === true, async (note) => {
        const { body, principal } = ctx;
        const prompts = typeof body.prompt === 'string' ? [body.prompt] : body.prompt;
        service.limits.prompts(prompts);
        if (body.stream && prompts.length > 1) throw badRequest('Streaming takes one prompt; send a string, or an array of one.', { code: 'invalid_request', field: 'body.prompt' });
        if (body.suffix) throw badRequest('suffix (fill-in-the-middle) is not supported.', { code: 'unsupported_parameter', field: 'body.suffix' });
        const params = generationParams(body);
        const target = await service.resolve(principal.account, body.model, 'chat');
        note.model = target.id;
        note.provider = target.provider.info.name;
        const id = completionId('cmpl');
        const created = unixNow();
        const echo = (prompt: string) => (body.echo ? prompt : '');

        if (!body.stream) {
          const choices = [];
          const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
          for (const [index, prompt] of prompts.entries()) {
            const out = await service.completeOn(target, prompt, params, { signal: ctx.signal });
            choices.push({ index, text: echo(prompt) + out.text, logprobs: null, finish_reason: wireFinish(out.finishReason) });
            usage.prompt_tokens += out.usage?.prompt_tokens ?? 0;
            usage.completion_tokens += out.usage?.completion_tokens ?? 0;
            note.finish_reason = out.finishReason;
          }
          usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
          Object.assign(note, { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens });
          return { id, object: 'text_completion', created, model: body.model, system_fingerprint: null, choices, usage };
        }

        const head = { id, object: 'text_completion', created, model: body.model, system_fingerprint: null };
        const stream = new ChunkStream(ctx.koa, ctx.signal);
        const prompt = prompts[0]!;
        if (body.echo) stream.send({ ...head, choices: [{ index: 0, text: prompt, logprobs: null, finish_reason: null }] });
        try {
          const out = await service.completeOn(target, prompt, params, {
            signal: stream.signal,
            onDelta: (text) => stream.send({ ...head, choices: [{ index: 0, text, logprobs: null, finish_reason: null }] }),
          });
          Object.assign(note, { finish_reason: out.finishReason, ttft_ms: out.firstTokenMs, prompt_tokens: out.usage?.prompt_tokens, completion_tokens: out.usage?.completion_tokens });
          stream.send({ ...head, choices: [{ index: 0, text: '', logprobs: null, finish_reason: wireFinish(out.finishReason) }] });
          if (body.stream_options?.include_usage) stream.send({ ...head, choices: [], usage: out.usage });
        } catch (err) {
          stream.fail(streamError(err));
        }
        stream.end();
        return HANDLED;
      }),
  });
}
