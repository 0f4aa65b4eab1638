/**
 * `POST /v1/voice/clone` (reference B.14, B.15): multipart `file` (one reference recording),
 * `name?`, `reference_text?`, `model?` (a cloning model, or `provider:model`), `validate?`
 * (default false; true speaks a short sentence with the new voice and removes it if that fails).
 * Answers `{ok, id, voice_id, voice, name, engine, validation}`.
 */
import { badRequest, defineSchema, route } from '@keel/plugin-sdk';
import { FILE_FIELD, readAudioUpload, requireMultipart } from '../audio-upload.js';
import type { VoiceLimits } from '../config.js';
import { readBoolean } from '../owner-settings.js';
import type { VoiceRuntime } from '../voice-runtime.js';
import type { CloneInput } from '../voice-service.js';
import type { ApiSwitch } from './api-switch.js';
import { refuseUnread } from './refuse-unread.js';

const MAX_FIELDS = 8;

export const cloneForm = defineSchema({
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'One reference recording (wav, flac, ogg; remote engines also mp3, m4a, webm, aac).' },
    name: { type: 'string', description: 'Display name (default `voice_<first 8 of the id>`).' },
    reference_text: { type: 'string', description: 'What the recording says.' },
    model: { type: 'string', description: 'A cloning model, or `provider:model` (`compatible`, `hosted`).' },
    validate: { type: 'string', description: 'true: speak a short sentence with the new voice, and remove it if that fails (default false).' },
  },
});

export function cloneRoute(service: VoiceRuntime, limits: () => VoiceLimits, api: ApiSwitch) {
  return route({
    method: 'POST',
    path: '/voice/clone',
    mount: 'openai',
    tags: ['openai', 'voice'],
    summary: 'Clone a voice from a reference recording',
    description:
      'Stores a cloned voice of the caller made through the configured cloning engine (`voice_cloning_engine`; Keel: a `compatible` endpoint\'s `/voice/clone`) and answers `{ok, id, voice_id, voice, name, engine, validation}`. ' +
      'Local cloning is not available in Keel (its reason is in `GET /v1/audio/voices` → `available_providers.unavailable.cloning`). ' +
      'Refusals: 400 "Missing audio file." and bad fields; 401; 413 above `limits.maxUploadBytes`; 415 not multipart; 501 no cloning engine can run here.',
    body: cloneForm,
    bodyKind: 'multipart-stream',
    responses: { 200: { description: 'The stored voice' }, 413: { description: 'The file is too large' }, 415: { description: 'Not multipart/form-data' } },
    handler: async ({ koa, principal, signal }) => {
      api.check();
      requireMultipart(koa.get('content-type'));
      const l = limits();
      let validate = false;
      let read = false;
      // The slot is taken before the body is read (see VoiceRuntime.cloneUpload).
      const voice = await refuseUnread(() =>
        service.cloneUpload(principal.account, signal, async (inner) => {
          const upload = await readAudioUpload(koa.req, { maxFileBytes: l.maxUploadBytes, maxFields: MAX_FIELDS, maxFieldBytes: l.maxFieldBytes, fileSetting: 'limits.maxUploadBytes' }, inner);
          read = true;
          if (!upload.file || upload.file.bytes.length === 0) throw badRequest('Missing audio file.', { code: 'missing_file', field: FILE_FIELD });
          const field = (name: string) => upload.fields.get(name)?.trim() || undefined;
          const input: CloneInput = { audio: { bytes: upload.file.bytes, filename: upload.file.filename, contentType: upload.file.mimeType } };
          const name = field('name');
          const referenceText = field('reference_text');
          const model = field('model') ?? field('provider');
          if (name) input.name = name;
          if (referenceText) input.reference_text = referenceText;
          if (model) input.model = model;
          validate = readBoolean(field('validate'), false);
          return input;
        }),
        () => read,
      );
      let validation: Record<string, unknown> | null = null;
      if (validate) validation = await service.validateClone(principal.account, voice.voice_id, signal);
      return { ok: true, id: voice.voice_id, voice_id: voice.voice_id, voice, name: voice.name, engine: voice.engine, validation };
    },
  });
}
