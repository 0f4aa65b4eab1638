/** `POST /v1/chat/completions`: JSON or streamed chunks, ending `data: [DONE]`. */
import { HANDLED, route, type RouteContext } from '@keel/plugin-sdk';
import type { InferenceService } from '../inference-service.js';
import type { CallRecorder } from './call-recorder.js';
import { completionId, unixNow } from './call-recorder.js';
import { ChunkStream } from './chunk-stream.js';
import { streamError } from './error-body.js';
import { chatCompletionBody, type ChatCompletionBody } from './openai-schemas.js';
import { chatCompletionResponse } from './openai-responses.js';
import { chatMessages, chatParams } from './to-generation-params.js';

export function chatCompletionsRoute(service: InferenceService, recorder: CallRecorder) {
  return route({
    method: 'POST',
    path: '/chat/completions',
    mount: 'openai',
    tags: ['openai'],
    summary: 'Chat completion (OpenAI-compatible; `stream: true` for SSE chunks)',
    body: chatCompletionBody,
    responses: { 200: { schema: chatCompletionResponse, description: 'The completion; with `stream: true`, an event stream of chunks instead' } },
    handler: (ctx) =>
      recorder.record(ctx as RouteContext<unknown, unknown, unknown>, '/v1/chat/completions', ctx.body.stream === true, async (note) => {
        const { body, principal } = ctx;
        const messages = chatMessages(body.messages);
        service.limits.chat(messages);
        const params = chatParams(body);
        const target = await service.resolve(principal.account, body.model, 'chat');
        note.model = target.id;
        note.provider = target.provider.info.name;
        const id = completionId('chatcmpl');
        const created = unixNow();
        const head = { id, object: 'chat.completion.chunk', created, model: body.model, system_fingerprint: null };

        if (!body.stream) {
          const out = await service.chatOn(target, messages, params, { signal: ctx.signal });
          Object.assign(note, { finish_reason: out.finishReason, prompt_tokens: out.usage?.prompt_tokens, completion_tokens: out.usage?.completion_tokens });
          return {
            id,
            object: 'chat.completion',
            created,
            model: body.model,
            system_fingerprint: null,
            choices: [{ index: 0, message: { role: 'assistant', content: out.text, refusal: null }, logprobs: null, finish_reason: wireFinish(out.finishReason) }],
            usage: out.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
          };
        }

        const stream = new ChunkStream(ctx.koa, ctx.signal);
        stream.send({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
        try {
          const out = await service.chatOn(target, messages, params, {
            signal: stream.signal,
            onDelta: (text, channel) => {
              const delta = channel === 'reasoning' ? { reasoning_content: text } : { content: text };
              stream.send({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] });
            },
          });
          Object.assign(note, { finish_reason: out.finishReason, ttft_ms: out.firstTokenMs, prompt_tokens: out.usage?.prompt_tokens, completion_tokens: out.usage?.completion_tokens });
          stream.send({ ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: wireFinish(out.finishReason) }] });
          if (body.stream_options?.include_usage) stream.send({ ...head, choices: [], usage: out.usage });
        } catch (err) {
          stream.fail(streamError(err));
        }
        stream.end();
        return HANDLED;
      }),
  });
}

/** OpenAI has no `cancelled`; a stopped generation reports `stop`. */
export function wireFinish(reason: string): 'stop' | 'length' {
  return reason === 'length' ? 'length' : 'stop';
}

export type { ChatCompletionBody };
