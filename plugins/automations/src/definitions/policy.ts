/**
 * The definition's plain parts (reference gateway-surfaces §3.2): title, context, policy and notify,
 * with their defaults; unknown fields refused at every level, values Keel does not run refused
 * with `unsupported_feature` (a definition never stores something the scheduler would ignore).
 */
import { automationError, invalidDefinition } from '../errors.js';
import type { AutomationContext, AutomationPolicy, MisfirePolicy } from '../model.js';
import { integerIn, isPlainObject, strictObject } from './shape.js';

export const MAX_TITLE_LENGTH = 120;
export const DEFAULT_GROWING_MAX_TOKENS = 50_000;
const MISFIRE: readonly MisfirePolicy[] = ['coalesce', 'skip', 'all'];
const DURATION = /^[1-9][0-9]*[smhd]$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const DEFAULT_POLICY: AutomationPolicy = {
  serial: true,
  misfire: 'coalesce',
  failure: 'continue',
  retry: { max_attempts: 3, backoff: { initial: '30s', factor: 2, max: '10m' } },
  tool_approval: 'auto',
};

export const DEFAULT_CONTEXT: AutomationContext = { mode: 'independent' };

/** A title: non-empty after trimming, at most 120 characters, no control characters. */
export function parseTitle(value: unknown, field = 'title'): string {
  if (typeof value !== 'string') throw invalidDefinition(field, `${field} must be a string.`);
  const title = value.trim();
  if (title === '') throw invalidDefinition(field, `${field} may not be empty.`);
  if ([...title].length > MAX_TITLE_LENGTH) throw invalidDefinition(field, `${field} is longer than ${MAX_TITLE_LENGTH} characters.`);
  // eslint-disable-next-line no-control-regex -- one line of display text
  if (/[\u0000-\u001f\u007f]/.test(title)) throw invalidDefinition(field, `${field} may not contain control characters or line breaks.`);
  return title;
}

/** The default title from the target's name (cut to 120 characters). */
export function titleFromName(name: string): string {
  const chars = [...name.trim().replace(/\s+/g, ' ')];
  const title = chars.length > MAX_TITLE_LENGTH ? `${chars.slice(0, MAX_TITLE_LENGTH - 1).join('')}…` : chars.join('');
  return title === '' ? 'Automation' : title;
}

export function parseContext(value: unknown, field = 'context'): AutomationContext {
  if (value === undefined) return { ...DEFAULT_CONTEXT };
  const raw = strictObject(value, field, ['mode', 'growing'], 'invalid_definition');
  const mode = raw.mode ?? 'independent';
  if (mode !== 'independent' && mode !== 'growing') throw invalidDefinition(`${field}.mode`, `${field}.mode must be "independent" or "growing".`);
  if (raw.growing === undefined) return mode === 'growing' ? { mode, growing: { max_tokens: DEFAULT_GROWING_MAX_TOKENS } } : { mode };
  if (mode !== 'growing') throw invalidDefinition(`${field}.growing`, `${field}.growing applies only to mode "growing".`);
  if (isPlainObject(raw.growing) && 'summary' in raw.growing) {
    throw automationError(422, 'unsupported_feature', 'A summarised growing context is not supported; the history window keeps the newest whole turns.', { field: `${field}.growing.summary` });
  }
  const growing = strictObject(raw.growing, `${field}.growing`, ['max_tokens'], 'invalid_definition');
  const maxTokens = growing.max_tokens === undefined ? DEFAULT_GROWING_MAX_TOKENS : integerIn(growing.max_tokens, `${field}.growing.max_tokens`, 1000, 1_000_000);
  return { mode, growing: { max_tokens: maxTokens } };
}

/** A policy from the client's fields over `base` (the defaults at creation, the current policy at a revise: fields merge). */
export function parsePolicy(value: unknown, base: AutomationPolicy = DEFAULT_POLICY, field = 'policy'): AutomationPolicy {
  if (value === undefined) return structuredClone(base);
  const raw = strictObject(value, field, ['serial', 'misfire', 'failure', 'retry', 'tool_approval', 'email_allowed_recipients', 'untrusted_input_tools'], 'invalid_definition');
  const policy = structuredClone(base);
  if (raw.serial !== undefined && raw.serial !== true) throw automationError(422, 'unsupported_feature', 'Occurrences of an automation always run one at a time (serial: true).', { field: `${field}.serial` });
  if (raw.failure !== undefined && raw.failure !== 'continue') throw automationError(422, 'unsupported_feature', 'After a failed occurrence an automation always continues (failure: "continue").', { field: `${field}.failure` });
  for (const key of ['email_allowed_recipients', 'untrusted_input_tools'] as const) {
    if (raw[key] !== undefined) throw automationError(422, 'unsupported_feature', `${field}.${key} is not supported: Keel has no mail tools or untrusted-input triggers.`, { field: `${field}.${key}` });
  }
  if (raw.misfire !== undefined) {
    if (typeof raw.misfire !== 'string' || !MISFIRE.includes(raw.misfire as MisfirePolicy)) {
      throw invalidDefinition(`${field}.misfire`, `${field}.misfire must be "coalesce" (one occurrence for the latest missed tick), "skip" (none) or "all" (each, one at a time).`);
    }
    policy.misfire = raw.misfire as MisfirePolicy;
  }
  if (raw.tool_approval !== undefined) {
    if (raw.tool_approval !== 'auto' && raw.tool_approval !== 'ask') throw invalidDefinition(`${field}.tool_approval`, `${field}.tool_approval must be "auto" or "ask".`);
    policy.tool_approval = raw.tool_approval;
  }
  if (raw.retry !== undefined) {
    const retry = strictObject(raw.retry, `${field}.retry`, ['max_attempts', 'backoff'], 'invalid_definition');
    if (retry.max_attempts !== undefined) policy.retry.max_attempts = integerIn(retry.max_attempts, `${field}.retry.max_attempts`, 1, 10);
    if (retry.backoff !== undefined) {
      const at = `${field}.retry.backoff`;
      const backoff = strictObject(retry.backoff, at, ['initial', 'factor', 'max'], 'invalid_definition');
      if (backoff.initial !== undefined) policy.retry.backoff.initial = duration(backoff.initial, `${at}.initial`);
      if (backoff.factor !== undefined) {
        if (typeof backoff.factor !== 'number' || !Number.isFinite(backoff.factor) || backoff.factor < 1 || backoff.factor > 10) throw invalidDefinition(`${at}.factor`, `${at}.factor must be a number from 1 to 10.`);
        policy.retry.backoff.factor = backoff.factor;
      }
      if (backoff.max !== undefined) policy.retry.backoff.max = duration(backoff.max, `${at}.max`);
    }
    if (durationMs(policy.retry.backoff.initial) > durationMs(policy.retry.backoff.max)) {
      throw invalidDefinition(`${field}.retry.backoff`, `${field}.retry.backoff.initial (${policy.retry.backoff.initial}) is longer than its max (${policy.retry.backoff.max}).`);
    }
  }
  return policy;
}

/** `notify`: only the console channel (attention items); `email` is not supported. */
export function parseNotify(value: unknown, field = 'notify'): { channels: string[] } {
  if (value === undefined) return { channels: ['console'] };
  const raw = strictObject(value, field, ['channels', 'recipients'], 'invalid_definition');
  if (raw.recipients !== undefined) throw automationError(422, 'unsupported_feature', `${field}.recipients is not supported: Keel sends no mail.`, { field: `${field}.recipients` });
  if (raw.channels === undefined) return { channels: ['console'] };
  if (!Array.isArray(raw.channels) || raw.channels.length !== 1 || raw.channels[0] !== 'console') {
    if (Array.isArray(raw.channels) && raw.channels.includes('email')) throw automationError(422, 'unsupported_feature', 'The email channel is not supported: Keel sends no mail; attention items are the console channel.', { field: `${field}.channels` });
    throw invalidDefinition(`${field}.channels`, `${field}.channels must be ["console"].`);
  }
  return { channels: ['console'] };
}

function duration(value: unknown, field: string): string {
  if (typeof value !== 'string' || !DURATION.test(value) || durationMs(value) > 366 * UNIT_MS.d!) throw invalidDefinition(field, `${field} must be a duration like "30s", "10m", "1h" or "1d" (at most 366d).`);
  return value;
}

/** Milliseconds of a `<n><s|m|h|d>` duration. */
export function durationMs(value: string): number {
  const n = Number(value.slice(0, -1));
  return n * UNIT_MS[value.slice(-1)]!;
}
