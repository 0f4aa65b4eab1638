/**
 * `POST /v1/audio/transcriptions` (reference B.14; OpenAI's shape): multipart `file` (required),
 * `model?` (or `provider:model`), `language?`, `prompt?`, `response_format?` (`json` default →
 * `{text}`, `text` → the bare text, `verbose_json` → `{task, language, duration, text, segments}`),
 * `temperature?` (0 – 1, accepted; the local engine is deterministic). Other fields OpenAI clients
 * may send are read within the field limits and ignored.
 */
import { badRequest, defineSchema, reply, route } from '@keel/plugin-sdk';
import { readAudioUpload, requireMultipart, FILE_FIELD } from '../audio-upload.js';
import type { VoiceLimits } from '../config.js';
import type { VoiceRuntime } from '../voice-runtime.js';
import type { TranscriptionInput } from '../voice-service.js';
import type { ApiSwitch } from './api-switch.js';
import { refuseUnread } from './refuse-unread.js';
import { wavDurationSeconds } from './wav-duration.js';

const FORMATS = ['json', 'text', 'verbose_json'] as const;
type TranscriptFormat = (typeof FORMATS)[number];
/** Form fields a client may send at most (OpenAI's own plus room for the ones it adds). */
const MAX_FIELDS = 16;

export const transcriptionForm = defineSchema({
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The audio (WAV; remote providers also take mp3, flac, ogg, m4a, webm, ...).' },
    model: { type: 'string', description: 'A model of the default provider, a provider id (`pocketsphinx`, `compatible`, ...), or `provider:model`.' },
    language: { type: 'string', description: 'Language code (default: the configured `voice_language`).' },
    prompt: { type: 'string', description: 'Free text for remote providers; for the local pocketsphinx engine, the phrases to listen for (its grammar mode).' },
    response_format: { type: 'string', enum: [...FORMATS], description: 'json (default), text or verbose_json.' },
    temperature: { type: 'number', minimum: 0, maximum: 1 },
  },
});

export function transcriptionRoute(service: VoiceRuntime, limits: () => VoiceLimits, api: ApiSwitch) {
  return route({
    method: 'POST',
    path: '/audio/transcriptions',
    mount: 'openai',
    tags: ['openai', 'voice'],
    summary: 'Speech to text (OpenAI-compatible)',
    description:
      'Transcribes the uploaded `file` with the configured `voice_stt_engine` (Keel: the local `pocketsphinx`) or the provider a `model` names. ' +
      'Answers `{text}` (json), the bare text (text) or `{task, language, duration, text, segments}` (verbose_json). ' +
      'Refusals (OpenAI-shaped `{error}`): 400 "Missing audio file." and bad fields; 401 without a token; 413 for a file above `limits.maxUploadBytes` (the connection is closed, the rest is not read); 415 for a body that is not multipart/form-data; 429/503 with Retry-After when busy; 501 when the engine\'s runtime is missing (with its install command); 504 past `limits.requestTimeoutMs`.',
    body: transcriptionForm,
    bodyKind: 'multipart-stream',
    responses: { 200: { description: '`{text}`, or the text, or the verbose JSON' }, 413: { description: 'The file is too large' }, 415: { description: 'Not multipart/form-data' } },
    handler: async ({ koa, principal, signal }) => {
      api.check();
      requireMultipart(koa.get('content-type'));
      const l = limits();
      let format = 'json' as TranscriptFormat;
      let bytes: Buffer = Buffer.alloc(0);
      let read = false;
      // The slot is taken before the body is read (see VoiceRuntime.transcribeUpload).
      const result = await refuseUnread(() =>
        service.transcribeUpload(principal.account, signal, async (inner) => {
          const upload = await readAudioUpload(koa.req, { maxFileBytes: l.maxUploadBytes, maxFields: MAX_FIELDS, maxFieldBytes: l.maxFieldBytes, fileSetting: 'limits.maxUploadBytes' }, inner);
          read = true;
          if (!upload.file || upload.file.bytes.length === 0) throw badRequest('Missing audio file.', { code: 'missing_file', field: FILE_FIELD });
          const field = (name: string) => upload.fields.get(name)?.trim() || undefined;
          format = (field('response_format') ?? 'json') as TranscriptFormat;
          if (!FORMATS.includes(format)) {
            throw badRequest(`Unsupported response_format: ${format.slice(0, 32)} (expected json, text or verbose_json).`, { code: 'unsupported_format', field: 'response_format' });
          }
          const temperature = field('temperature');
          if (temperature !== undefined && !(Number(temperature) >= 0 && Number(temperature) <= 1)) {
            throw badRequest(`temperature must be a number between 0 and 1 (got ${temperature.slice(0, 32)}).`, { code: 'invalid_temperature', field: 'temperature' });
          }
          bytes = upload.file.bytes;
          const input: TranscriptionInput = { audio: { bytes, filename: upload.file.filename, contentType: upload.file.mimeType } };
          const model = field('model');
          const language = field('language');
          const prompt = upload.fields.get('prompt');
          if (model) input.model = model;
          if (language) input.language = language.toLowerCase();
          if (prompt?.trim()) input.prompt = prompt;
          return input;
        }),
        () => read,
      );
      if (format === 'text') return reply(200, result.text, { 'content-type': 'text/plain; charset=utf-8' });
      if (format === 'json') return { text: result.text };
      const duration = wavDurationSeconds(bytes);
      return {
        task: 'transcribe',
        language: result.language,
        duration,
        text: result.text,
        // The local engine gives no timings: one segment spans the whole recording.
        segments: [{ id: 0, seek: 0, start: 0, end: duration, text: result.text, tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 0, no_speech_prob: 0 }],
      };
    },
  });
}
