/**
 * The web example's errors (reference B.15): `{detail: "<sentence>"}`; a voice library refusal
 * keeps its status (400 bad input, 404 unknown voice, 501 missing runtime with its install
 * command, 502 remote failure, 503 busy); anything else is the kernel's 500.
 */
import { HttpError } from '@keel/plugin-sdk';
import { VoiceError } from '@keel/voice';

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
