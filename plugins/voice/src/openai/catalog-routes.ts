/**
 * The listings (reference B.14, B.7): `GET /v1/audio/voices`, `GET /v1/audio/speech/models`,
 * `GET /v1/audio/transcriptions/models`, each `{object: "list", data: [...]}` plus the fields of
 * the voice catalog (`voice_catalog`) they are computed from. A provider that cannot answer is
 * listed with its reason, never an error (reference B.17).
 */
import { defineSchema, route } from '@keel/plugin-sdk';
import type { VoiceService } from '../voice-service.js';
import type { ApiSwitch } from './api-switch.js';
import { modelList, voiceList } from './catalog-lists.js';

// Other query parameters are ignored, as OpenAI-style servers do.
const filters = defineSchema({
  type: 'object',
  properties: {
    provider: { type: 'string', maxLength: 128, description: 'Only this provider (`espeak`, `hosted`, `compatible`, ...), or `provider:model`.' },
    model: { type: 'string', maxLength: 512, description: 'Only this model of the provider.' },
  },
});

export function catalogRoutes(service: VoiceService, api: ApiSwitch) {
  return [
    route({
      method: 'GET',
      path: '/audio/voices',
      mount: 'openai',
      tags: ['openai', 'voice'],
      summary: 'Voices: provider profiles and cloned voices',
      description:
        'The voice catalog of reference B.7 (`voice_catalog`) with `object: "list"` and `data`: each profile `{object: "voice.profile", kind: "profile", voice, id, provider, ...}` and each cloned voice `{object: "voice", kind: "clone", ...}`. ' +
        'Optional `provider` (or `provider:model`) and `model` filters. Remote providers are probed within a shared 5 s budget; one that does not answer is listed in `unreachable_tts_providers`, never an error.',
      query: filters,
      handler: async ({ query, principal }) => {
        api.check();
        return voiceList(await service.voiceCatalog(principal.account, query));
      },
    }),
    route({
      method: 'GET',
      path: '/audio/speech/models',
      mount: 'openai',
      tags: ['openai', 'voice'],
      summary: 'Speech (TTS) models by provider',
      description: '`{object: "list", data: [{id, object: "model", owned_by, provider, kind: "tts", formats, unreachable?}]}` plus `tts_models`, `tts_models_by_provider`, `tts_model_variants`, `tts_catalog_by_provider`, `available_providers` of the voice catalog (reference B.7). Optional `provider` filter.',
      query: filters,
      handler: async ({ query, principal }) => {
        api.check();
        return modelList('tts', await service.models(principal.account, 'tts', query));
      },
    }),
    route({
      method: 'GET',
      path: '/audio/transcriptions/models',
      mount: 'openai',
      tags: ['openai', 'voice'],
      summary: 'Transcription (STT) models by provider',
      description: '`{object: "list", data: [{id, object: "model", owned_by, provider, kind: "stt", formats, unreachable?}]}` plus `stt_models`, `stt_models_by_provider`, `stt_engine_variants`, `stt_catalog_by_provider`, `available_providers` of the voice catalog (reference B.7). Optional `provider` filter.',
      query: filters,
      handler: async ({ query, principal }) => {
        api.check();
        return modelList('stt', await service.models(principal.account, 'stt', query));
      },
    }),
  ];
}
