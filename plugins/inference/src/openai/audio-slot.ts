/**
 * The OpenAI audio routes (`/v1/audio/*`, `/v1/voice/clone`) belong to the voice plugin; this
 * plugin owns `/v1` and answers them 501 with install guidance when no plugin serves them
 * (reference voice-vision.md B.14). The voice plugin says it is here by claiming the slot
 * (`inference.openai-audio`, an optional dependency of its own): the dependency runs from voice to
 * inference, as the voice plugin's other ones do (through the runs plugin), so there is no cycle.
 * The catch-all routes below have a parameter, so the voice plugin's exact routes win over them;
 * with the slot claimed, what still reaches them is an unknown audio path (404).
 */
import { HttpError, notFound, route, token, defineSchema } from '@keel/plugin-sdk';

export interface OpenAiAudioSlot {
  /** Called by the plugin that serves the audio routes, during its setup. */
  claim(pluginId: string): void;
  /** The claiming plugin's id, or null. */
  readonly claimedBy: string | null;
  /** Whether the OpenAI-compatible API is switched on (an admin may switch `/v1` off): the audio routes honour it too. */
  enabled(): boolean;
}

export const openaiAudioSlotToken = token<OpenAiAudioSlot>('inference.openai-audio');

export class AudioSlot implements OpenAiAudioSlot {
  private owner: string | null = null;

  constructor(readonly enabled: () => boolean) {}

  claim(pluginId: string): void {
    this.owner = pluginId;
  }

  get claimedBy(): string | null {
    return this.owner;
  }
}

/** The sentence of the 501 (reference B.14: "install/config guidance"). */
export const VOICE_MISSING =
  'Speech and transcription are not available on this server: the voice plugin is not loaded. Add {"use": "@keel/plugin-voice"} to the "plugins" of the server\'s config file (config/default.json loads it) and restart; its README lists the settings (local espeak and pocketsphinx engines, or a remote OpenAI-compatible endpoint).';

const restParams = defineSchema({ type: 'object', required: ['rest'], properties: { rest: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } });

export function audioSlotRoutes(slot: AudioSlot) {
  const answer = (path: string) => {
    if (slot.claimedBy === null) throw new HttpError(501, VOICE_MISSING, { code: 'voice_unavailable' });
    throw notFound(`No audio route ${path} exists; see /openapi.json for the audio routes.`, { code: 'not_found' });
  };
  const paths = [
    { method: 'POST', path: '/audio/*rest', summary: 'Speech and transcription (501 without the voice plugin)' },
    { method: 'GET', path: '/audio/*rest', summary: 'Voice and model listings (501 without the voice plugin)' },
    { method: 'POST', path: '/voice/*rest', summary: 'Voice cloning (501 without the voice plugin)' },
  ] as const;
  return paths.map((p) =>
    route({
      method: p.method,
      path: p.path,
      mount: 'openai',
      tags: ['openai'],
      summary: p.summary,
      description: 'The voice plugin (`@keel/plugin-voice`) serves `/v1/audio/speech`, `/v1/audio/transcriptions`, `/v1/audio/voices`, `/v1/audio/speech/models`, `/v1/audio/transcriptions/models` and `/v1/voice/clone`. Without it these paths answer 501 with the sentence that says how to load it; with it, an unknown audio path answers 404.',
      params: restParams,
      responses: { 501: { description: 'The voice plugin is not loaded' } },
      handler: ({ koa }) => answer(`${koa.method} ${koa.path.slice(0, 200)}`),
    }),
  );
}
