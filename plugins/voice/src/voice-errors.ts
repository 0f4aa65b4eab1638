/**
 * Turns what the voice library throws into HTTP errors: a `VoiceError` keeps its status, code and
 * sentence (with its install command, when a runtime is missing); an abort by the deadline is the
 * 504 the admission raised; anything else is left for the kernel's 500 (logged, never shown).
 */
import { HttpError, isHttpError } from '@keel/plugin-sdk';
import { VoiceError } from '@keel/voice';

/** Recognises a VoiceError also from another copy of `@keel/voice`. */
export function isVoiceError(err: unknown): err is VoiceError {
  return err instanceof VoiceError || (err instanceof Error && err.name === 'VoiceError' && typeof (err as { status?: unknown }).status === 'number');
}

/**
 * The request field a library refusal is about, by its code, so an OpenAI client's `error.param`
 * names it (OpenAI does). Only codes that mean one field whichever route raised them.
 */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  unknown_model: 'body.model',
  unknown_profile: 'body.voice',
  unsupported_profile: 'body.voice',
  unknown_voice: 'body.voice',
  unsupported_language: 'body.language',
  invalid_speed: 'body.speed',
  unsupported_speed: 'body.speed',
  unsupported_instructions: 'body.instructions',
  unknown_word: 'body.prompt',
  invalid_prompt: 'body.prompt',
  // The uploaded recording.
  missing_audio: 'body.file',
  empty_audio: 'body.file',
  invalid_audio: 'body.file',
  audio_too_long: 'body.file',
};

export function toHttpError(err: unknown, field?: string): unknown {
  if (isHttpError(err)) return err;
  if (isVoiceError(err)) {
    const status = err.status >= 400 && err.status <= 599 ? err.status : 500;
    const message = err.install && !err.message.includes(err.install) ? `${err.message} Install with: ${err.install}` : err.message;
    const at = field ?? (err.code ? FIELD_OF_CODE[err.code] : undefined);
    return new HttpError(status, message, { code: err.code, ...(at && (status === 400 || status === 404) ? { field: at } : {}), cause: err });
  }
  // The deadline's abort reason is its own 504.
  if (err instanceof Error && err.name === 'AbortError' && isHttpError((err as { cause?: unknown }).cause)) return (err as { cause: unknown }).cause;
  return err;
}

/** Runs `fn`, mapping its failure with `toHttpError`. */
export async function mapVoiceErrors<T>(fn: () => Promise<T>, field?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toHttpError(err, field);
  }
}
