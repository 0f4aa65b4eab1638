/**
 * `POST /v1/audio/speech`'s body (reference B.14, with B.15's sentences): `input` (alias `text`),
 * `model?` (or `provider:model`), `voice?` (an id, or a catalog record), `response_format?` (alias
 * `format`, default `wav`), `speed?` (0.5 – 2.0), `instructions?`, `language?`. Extra fields OpenAI
 * clients send (`stream_format`, ...) are allowed and ignored.
 */
import { badRequest, defineSchema, type Infer } from '@keel/plugin-sdk';
import type { AudioFormat } from '@keel/voice';
import { parseAudioFormat } from '../audio-formats.js';
import type { SpeechInput } from '../voice-service.js';

const id = { type: 'string', maxLength: 512 } as const;

export const speechBody = defineSchema({
  type: 'object',
  properties: {
    input: { type: 'string', description: 'The text to speak (alias `text`).' },
    text: { type: 'string', description: 'Alias of `input`.' },
    model: { type: ['string', 'null'], maxLength: 512, description: 'A model of the default provider, a provider id (`espeak`, `compatible`, ...), or `provider:model`.' },
    voice: {
      anyOf: [id, { type: 'object', properties: { id, voice_id: id, voice: id, profile_id: id, name: id } }, { type: 'null' }],
      description: "A profile of the provider (espeak: a language voice such as `en-us`), a cloned voice id, or a catalog record carrying one (`voice_id`, `voice`, `profile_id`, `id` or `name`).",
    },
    response_format: { type: ['string', 'null'], maxLength: 32, description: 'wav (default), mp3, flac, ogg, opus or pcm: what the provider can write (local engines: wav, pcm).' },
    format: { type: ['string', 'null'], maxLength: 32, description: 'Alias of `response_format`.' },
    speed: { type: ['number', 'null'], description: '0.5 to 2.0 (1 is the normal rate).' },
    instructions: { type: ['string', 'null'], maxLength: 4096, description: 'Delivery instructions, for providers that support them (rejected where unsupported).' },
    language: { type: ['string', 'null'], maxLength: 32, description: 'Language code (default: the configured `voice_language`).' },
    stream_format: { type: ['string', 'null'], maxLength: 16, description: '`audio`: send the audio as it is made, segment by segment, with chunked transfer (wav or pcm only). Absent: the whole file with its length.' },
  },
  examples: [{ model: 'espeak', input: 'Hello from Keel.', voice: 'en-us', response_format: 'wav' }],
});

export type SpeechBody = Infer<typeof speechBody>;

/** `base` and `default` name the provider's own voice (reference B.15). */
const NO_VOICE = new Set(['', 'base', 'default']);

/** The id a `voice` value carries, in reference B.13's order. */
export function voiceId(voice: SpeechBody['voice']): string | undefined {
  if (voice === null || voice === undefined) return undefined;
  if (typeof voice === 'string') return NO_VOICE.has(voice.trim().toLowerCase()) ? undefined : voice.trim();
  for (const key of ['voice_id', 'voice', 'profile_id', 'id', 'name'] as const) {
    const value = voice[key];
    if (typeof value === 'string' && value.trim()) return voiceId(value);
  }
  throw badRequest('The voice record carries no id: give `voice_id`, `voice`, `profile_id`, `id` or `name`.', { code: 'invalid_voice', field: 'body.voice' });
}

/** Whether the audio is to be streamed (`stream_format: "audio"`), checked against the format. */
export function streamed(body: SpeechBody, format: AudioFormat): boolean {
  const mode = body.stream_format?.trim().toLowerCase();
  if (!mode) return false;
  if (mode === 'sse') throw badRequest('stream_format sse is not supported; use "audio" (the audio bytes as they are made, with chunked transfer).', { code: 'unsupported_stream_format', field: 'body.stream_format' });
  if (mode !== 'audio') throw badRequest(`Unsupported stream_format: ${mode.slice(0, 16)} (expected audio).`, { code: 'unsupported_stream_format', field: 'body.stream_format' });
  if (format !== 'wav' && format !== 'pcm') throw badRequest(`Streamed speech is wav or pcm; ${format} is sent whole (leave stream_format out).`, { code: 'unsupported_stream_format', field: 'body.stream_format' });
  return true;
}

/** The body as a synthesis request, or the 400 that names what is wrong. */
export function speechInput(body: SpeechBody, maxInputChars: number): SpeechInput {
  const text = body.input ?? body.text;
  if (typeof text !== 'string' || text.trim() === '') throw badRequest('Missing input text.', { code: 'missing_input', field: 'body.input' });
  if (text.length > maxInputChars) {
    throw badRequest(`The input text is ${text.length} characters long; the limit is ${maxInputChars} (setting limits.maxInputChars). Send it in shorter parts.`, { code: 'input_too_long', field: 'body.input' });
  }
  const formatName = body.response_format ?? body.format ?? 'wav';
  const format: AudioFormat | null = parseAudioFormat(formatName);
  if (!format) throw badRequest(`Unsupported audio format: ${formatName.slice(0, 32)}`, { code: 'unsupported_format', field: 'body.response_format' });
  const input: SpeechInput = { text, format };
  if (body.speed !== null && body.speed !== undefined) {
    if (!(body.speed >= 0.5 && body.speed <= 2.0)) throw badRequest(`Speed must be between 0.5 and 2.0 (got ${body.speed}).`, { code: 'invalid_speed', field: 'body.speed' });
    input.speed = body.speed;
  }
  const voice = voiceId(body.voice);
  if (voice) input.voice = voice;
  if (body.model) input.model = body.model.trim();
  if (body.instructions) input.instructions = body.instructions;
  if (body.language) input.language = body.language.trim().toLowerCase();
  return input;
}
