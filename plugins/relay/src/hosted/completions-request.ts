/**
 * The upstream completions body of a client's `/v1/completions` body (hosted): the prompt as one
 * string, the upstream's model id, always streaming with usage; other fields pass through.
 */
import { unprocessable } from '@keel/plugin-sdk';

const LOCAL_FIELDS = ['stream', 'stream_options', 'store', 'n', 'conversation'];

export function upstreamCompletionsBody(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  if (body.response_format !== undefined && body.response_format !== null) {
    throw unprocessable('`response_format` is not supported on `/v1/completions`; use `/v1/chat/completions` for structured output.', { code: 'unsupported_parameter', field: 'response_format' });
  }
  const out: Record<string, unknown> = { ...body };
  for (const field of LOCAL_FIELDS) delete out[field];
  delete out.response_format;
  if (out.reasoning_effort === null) delete out.reasoning_effort;
  out.model = upstreamModel;
  out.prompt = Array.isArray(body.prompt) ? body.prompt[0] : body.prompt;
  out.stream = true;
  out.stream_options = { include_usage: true };
  return out;
}
