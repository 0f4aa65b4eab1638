/**
 * `channel:meta`, the room's self-description (reference §6): a closed set of fields, each with a
 * type rule. A write carries the full merged value; `traffic_policy` survives a write that omits it.
 */
import { badRequest } from '@keel/plugin-sdk';
import { capText, sanitize } from '../../text-rules.js';

export const META_KEY = 'channel:meta';

export interface ChannelMeta {
  purpose?: string;
  norms?: string;
  expected_traffic?: string;
  response_sla_minutes?: number;
  language?: 'plain' | 'terse' | 'structured';
  authorship_required?: boolean;
  state?: 'open' | 'closed';
  norms_required?: boolean;
  rulings_required?: boolean;
  traffic_policy?: 'collaboration' | 'noticeboard';
  gated_acts?: GatedAct[];
}

export type GatedAct = 'fs_remove' | 'decision' | 'phase_complete';

const TEXT_FIELDS = ['purpose', 'norms', 'expected_traffic'] as const;
const FLAG_FIELDS = ['authorship_required', 'norms_required', 'rulings_required'] as const;
const CHOICES = {
  language: ['plain', 'terse', 'structured'],
  state: ['open', 'closed'],
  traffic_policy: ['collaboration', 'noticeboard'],
} as const;
const GATED_ACTS: GatedAct[] = ['decision', 'fs_remove', 'phase_complete'];
export const META_FIELDS = [...TEXT_FIELDS, ...FLAG_FIELDS, ...Object.keys(CHOICES), 'response_sla_minutes', 'gated_acts'].sort();
const META_TEXT_CHARS = 500;
const MAX_SLA_MINUTES = 30 * 24 * 60;

function pyList(items: string[]): string {
  return `[${items.map((i) => `'${i}'`).join(', ')}]`;
}

/** The validated meta to store; `previous` supplies fields a write may omit without clearing. */
export function validateMeta(value: unknown, previous: ChannelMeta | undefined): ChannelMeta {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('channel:meta must be a JSON object of meta fields');
  const input = value as Record<string, unknown>;
  const unknown = Object.keys(input).filter((k) => !META_FIELDS.includes(k)).sort();
  if (unknown.length) throw badRequest(`unknown channel:meta fields: ${pyList(unknown)} (allowed: ${pyList(META_FIELDS)})`);
  const meta: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(input)) {
    if (raw === null) continue; // null clears a field
    meta[field] = checkField(field, raw);
  }
  if (meta.traffic_policy === undefined && !('traffic_policy' in input) && previous?.traffic_policy) meta.traffic_policy = previous.traffic_policy;
  return meta as ChannelMeta;
}

function checkField(field: string, raw: unknown): unknown {
  if ((TEXT_FIELDS as readonly string[]).includes(field)) {
    if (typeof raw !== 'string') throw badRequest(`channel:meta.${field} must be a string`);
    return capText(sanitize(raw), META_TEXT_CHARS, `channel:meta.${field}`);
  }
  if ((FLAG_FIELDS as readonly string[]).includes(field)) {
    if (typeof raw !== 'boolean') throw badRequest(`channel:meta.${field} must be true or false`);
    return raw;
  }
  if (field in CHOICES) {
    const choices = CHOICES[field as keyof typeof CHOICES] as readonly string[];
    if (typeof raw !== 'string' || !choices.includes(raw)) throw badRequest(`channel:meta.${field} must be one of ${pyList([...choices])}`);
    return raw;
  }
  if (field === 'response_sla_minutes') {
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > MAX_SLA_MINUTES) {
      throw badRequest(`channel:meta.response_sla_minutes must be a whole number of minutes from 1 to ${MAX_SLA_MINUTES}`);
    }
    return raw;
  }
  // gated_acts
  if (!Array.isArray(raw) || raw.some((a) => typeof a !== 'string' || !GATED_ACTS.includes(a as GatedAct))) {
    throw badRequest(`channel:meta.gated_acts must be a subset of ${pyList(GATED_ACTS)}`);
  }
  return [...new Set(raw as GatedAct[])].sort();
}
