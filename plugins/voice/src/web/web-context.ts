/** What the web example's routes share, and the account's choices as `current` shows them (reference B.15). */
import type { AccountVoice, AccountVoices } from './account-voices.js';
import type { VoiceWebBackend, WebDefaults } from './web-backend.js';
import type { WebConfig } from './web-config.js';

export interface WebLimits {
  /** Longest text `POST /api/tts` speaks. */
  maxInputChars: number;
  /** Largest audio file of `POST /api/stt/*` and `POST /api/voices/clone`. */
  maxUploadBytes: number;
  /** Largest text field of those forms. */
  maxFieldBytes: number;
}

export interface VoiceWebContext {
  backend: VoiceWebBackend;
  defaults: WebDefaults;
  choices: AccountVoices;
  web: WebConfig;
  limits: WebLimits;
  /** Where these routes are mounted (`/voice`), for `GET /api/status`'s route list. */
  prefix: string;
}

export function activeProvider(ctx: VoiceWebContext, choice: AccountVoice): string {
  return choice.ttsProvider ?? ctx.defaults.ttsEngine;
}

/** The reference's `current` object for one account's choices. */
export function currentOf(ctx: VoiceWebContext, choice: AccountVoice): Record<string, unknown> {
  const provider = activeProvider(ctx, choice);
  return {
    language: choice.language ?? ctx.defaults.language,
    voice: choice.voice?.id ?? null,
    voice_kind: choice.voice?.kind === 'clone' ? 'clone' : 'base',
    role_voices: { assistant: choice.roleVoices.assistant?.id ?? null, user: choice.roleVoices.user?.id ?? null },
    speed: choice.speed ?? 1,
    tts_engine: provider,
    tts_provider: provider,
    profile: choice.voice?.kind === 'profile' ? choice.voice.id : null,
  };
}

/** Booleans of form fields and JSON bodies: true/false/on/off/yes/no/1/0 (reference B.13's reading). */
export function flagOf(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (value === undefined || value === null || value === '') return fallback;
  const word = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes', 'y', 'on'].includes(word)) return true;
  if (['0', 'false', 'no', 'n', 'off'].includes(word)) return false;
  return fallback;
}
