/** The OpenAI error object for an error that happens after a stream has started. */
import { HttpError, isHttpError, openaiErrorFormat } from '@keel/plugin-sdk';

export function streamError(err: unknown): { message: string; type: string; code: string | null; param: string | null } {
  const httpError = isHttpError(err) ? err : new HttpError(500, 'The generation failed.', { code: 'internal_error', cause: err });
  return (openaiErrorFormat(httpError).body as { error: { message: string; type: string; code: string | null; param: string | null } }).error;
}
