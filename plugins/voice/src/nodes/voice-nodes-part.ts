/**
 * The voice plugin's part that adds `generate_voice` and `transcribe_audio` to the runs plugin
 * (when it is loaded): they speak and listen through the voice service for the run's account,
 * within the plugin's limits, and keep their audio as artifacts of the run (artifacts plugin).
 */
import type { VoicePart } from '../plugin-parts.js';
import { registerVoiceNodes } from './index.js';

/** Engine ids that call out of this machine (`auto` resolves to hosted, reference B.3). */
const REMOTE_PROVIDERS = new Set(['hosted', 'compatible', 'auto', 'remote', 'proxy', 'openai', 'openai-compatible']);

/** Whether a provider (or `provider:model` selector) runs here. */
export function isLocalProvider(provider: string): boolean {
  return !REMOTE_PROVIDERS.has(provider.split(':')[0]!.trim().toLowerCase());
}

export const voiceNodesPart: VoicePart = (ctx) => {
  if (!ctx.nodeTypes) return {};
  registerVoiceNodes(ctx.nodeTypes, {
    speech: ctx.service,
    isLocal: (kind, provider) => isLocalProvider(provider ?? (kind === 'tts' ? ctx.settings.ttsEngine : ctx.settings.sttEngine)),
    limits: { maxTextChars: ctx.config.limits.maxInputChars, maxAudioBytes: ctx.config.limits.maxUploadBytes },
    artifacts: ctx.artifacts ?? null,
  });
  return {};
};
