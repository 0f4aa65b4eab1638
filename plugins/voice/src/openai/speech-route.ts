/** `POST /v1/audio/speech`: text to audio bytes (reference B.14), OpenAI's route and shape. */
import { reply, route } from '@keel/plugin-sdk';
import type { VoiceLimits } from '../config.js';
import type { VoiceRuntime } from '../voice-runtime.js';
import type { ApiSwitch } from './api-switch.js';
import { speechBody, speechInput, streamed } from './speech-request.js';
import { streamSpeech } from './speech-stream.js';

export function speechRoute(service: VoiceRuntime, limits: () => VoiceLimits, api: ApiSwitch) {
  return route({
    method: 'POST',
    path: '/audio/speech',
    mount: 'openai',
    tags: ['openai', 'voice'],
    summary: 'Text to speech (OpenAI-compatible)',
    description:
      'Speaks `input` (alias `text`) and answers the audio bytes with their media type (`audio/wav` by default; `audio/mpeg` for mp3, `audio/flac`, `audio/ogg` for ogg and opus, `application/octet-stream` for pcm). ' +
      'The provider is the configured `voice_tts_engine` (Keel: the local `espeak`), or the one a `model` of the form `provider` or `provider:model` names. ' +
      'With `stream_format: "audio"` (wav or pcm) the audio is sent as it is made, segment by segment (the first segment one sentence or clause of at most 60 characters, later ones whole sentences up to 240), with chunked transfer; a WAV stream\'s header gives its sizes as unknown (0xFFFFFFFF). ' +
      'Refusals (OpenAI-shaped `{error}`): 400 "Missing input text.", "Unsupported audio format: x", "Speed must be between 0.5 and 2.0", an input longer than `limits.maxInputChars`; 401 without a token; 429/503 with Retry-After when the account or the server is busy; 501 when the provider\'s runtime is missing (with its install command); 504 past `limits.requestTimeoutMs`.',
    body: speechBody,
    // A body carrying the longest input in JSON escapes (6 bytes a character at worst), with room for the other fields.
    bodyLimitBytes: limits().maxInputChars * 6 + 64 * 1024,
    responses: {
      200: { description: 'The audio bytes', contentType: 'audio/wav' },
      400: { description: 'Bad input' },
      501: { description: 'The provider cannot run here' },
    },
    handler: async ({ body, principal, signal }) => {
      api.check();
      const input = speechInput(body, limits().maxInputChars);
      const format = input.format ?? 'wav';
      if (streamed(body, format)) return streamSpeech(service, principal.account, { ...input, format: format as 'wav' | 'pcm' }, signal);
      const audio = await service.speak(principal.account, { ...input, signal });
      return reply(200, audio.bytes, {
        'content-type': audio.contentType,
        'content-disposition': `inline; filename="speech.${audio.format}"`,
        'x-voice-provider': audio.provider,
      });
    },
  });
}
