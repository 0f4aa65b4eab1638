/**
 * The relay's error envelope (reference §1.2): OpenAI-shaped `{error: {message, type, code, param}}`
 * with a `detail` mirror of the message, so readers of the origin's FastAPI `{detail}` keep working.
 * Every refusal of the mount, the kernel's included (401, bad JSON, 404), takes this shape.
 */
import { openaiErrorFormat, reply, type ErrorFormatter, type Reply } from '@keel/plugin-sdk';
import type { OpenAiErrorObject, RelayFailure } from './contracts.js';

export const relayErrorFormat: ErrorFormatter = (err) => {
  const formatted = openaiErrorFormat(err);
  const body = formatted.body as { error: OpenAiErrorObject };
  return { status: formatted.status, body: { error: body.error, detail: body.error.message } };
};

/** The answer to a failure raised before any byte went out: its real status, its object verbatim. */
export function failureReply(failure: RelayFailure): Reply {
  return reply(failure.status, { error: failure.error, detail: failure.error.message }, failure.headers);
}
