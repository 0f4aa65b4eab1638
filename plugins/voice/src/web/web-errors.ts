/**
 * The web example's errors (reference B.15): `{detail: "<sentence>"}`; a voice library refusal
 * keeps its status (400 bad input, 404 unknown voice, 501 missing runtime with its install
 * command, 502 remote failure, 503 busy); anything else is the kernel's 500.
 */
import { gatewayErrorFormat, HttpError, type ErrorFormatter } from '@keel/plugin-sdk';
import { VoiceError } from '@keel/voice';

/**
 * The error shape of the plugin's default mount (`/voice`): always `{detail: "<sentence>"}`, as the
 * reference's web example answers, so a client shows `detail` as is. The gateway's own shape would
 * turn a refusal that carries a code (an engine's `unsupported_format`, the body parser's
 * `invalid_json`, the auth's `missing_token`) into `{detail: {reason_code, message}}`.
 */
export const webErrorFormat: ErrorFormatter = (err) => {
  const { status, body } = gatewayErrorFormat(err);
  const detail = (body as { detail?: unknown }).detail;
  if (detail && typeof detail === 'object' && typeof (detail as { message?: unknown }).message === 'string') {
    return { status, body: { detail: (detail as { message: string }).message } };
  }
  return { status, body };
};

export function webError(err: unknown): unknown {
  if (err instanceof VoiceError) {
    const install = err.install && !err.message.includes(err.install) ? ` Install with: ${err.install}` : '';
    return new HttpError(err.status, `${err.message}${install}`, { cause: err });
  }
  return err;
}

/** Runs `work`, turning a voice library refusal into its HTTP answer. */
export async function answering<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw webError(err);
  }
}
