/**
 * The web example's request values and the sentences refusing them (reference B.15): voice kinds
 * and roles, provider names, speed, language, audio format, codebook settings.
 */
import { badRequest } from '@keel/plugin-sdk';
import type { AudioFormat } from '@keel/voice';
import { audioFormatOf } from '../nodes/generate-voice.js';
import type { VoiceKind, VoiceRole } from './account-voices.js';

const KIND_ALIASES: Record<string, VoiceKind> = { base: 'base', tts: 'base', piper: 'base', clone: 'clone', cloned: 'clone', profile: 'profile' };

/** `base` (aliases `tts`, `piper`), `clone` (alias `cloned`) or `profile`; absent is `base`. */
export function voiceKindOf(value: unknown): VoiceKind {
  if (value === undefined || value === null || value === '') return 'base';
  const kind = typeof value === 'string' ? KIND_ALIASES[value.trim().toLowerCase()] : undefined;
  if (!kind) throw badRequest('Voice kind must be base, clone, or profile.');
  return kind;
}

export function voiceRoleOf(value: unknown): VoiceRole | null {
  if (value === undefined || value === null || value === '') return null;
  const role = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (role !== 'assistant' && role !== 'user') throw badRequest('Voice role must be assistant or user.');
  return role;
}

/** Names that mean "no particular voice" in `POST /api/tts` (reference B.15). */
export const BASE_VOICE_NAMES = new Set(['base', 'default', 'piper', 'tts']);

/** Provider spellings the web example accepts (`remote`, `proxy` mean compatible). */
const PROVIDER_ALIASES: Record<string, string> = { remote: 'compatible', proxy: 'compatible', 'openai-compatible': 'compatible', openai: 'hosted' };

export function providerNameOf(value: string): string {
  const name = value.trim().toLowerCase();
  return PROVIDER_ALIASES[name] ?? name;
}

export function speedOf(value: unknown): number | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || n < 0.5 || n > 2) throw badRequest(`Speed must be between 0.5 and 2.0 (got ${JSON.stringify(value)}).`);
  return n;
}

const LANGUAGE = /^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})?$/i;

export function languageOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || !LANGUAGE.test(value.trim())) throw badRequest(`Unsupported or unavailable language: ${String(value).slice(0, 64)}`);
  return value.trim().toLowerCase();
}

export function formatOf(value: unknown): AudioFormat {
  if (value === undefined || value === null || value === '') return 'wav';
  const format = typeof value === 'string' ? audioFormatOf(value) : undefined;
  if (!format) throw badRequest(`Unsupported audio format: ${String(value).slice(0, 64)}`);
  return format;
}

const PREDICTORS = ['auto', 'reference'] as const;
const SAMPLERS = ['multinomial', 'exponential'] as const;

/** Codebook settings (reference B.1): checked before anything is applied or loaded. */
export function codebookOf(predictor: unknown, sampler: unknown, current: { predictor: (typeof PREDICTORS)[number]; sampler: (typeof SAMPLERS)[number] }) {
  const pick = <T extends string>(value: unknown, allowed: readonly T[], name: string, fallback: T): T => {
    if (value === undefined || value === null || value === '') return fallback;
    const word = typeof value === 'string' ? value.trim().toLowerCase() : '';
    if (!(allowed as readonly string[]).includes(word)) throw badRequest(`Invalid codebook ${name} ${JSON.stringify(value).slice(0, 64)}: must be one of ${allowed.join(', ')}.`);
    return word as T;
  };
  return { predictor: pick(predictor, PREDICTORS, 'predictor', current.predictor), sampler: pick(sampler, SAMPLERS, 'sampler', current.sampler) };
}
