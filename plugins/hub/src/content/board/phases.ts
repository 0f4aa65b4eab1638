/**
 * Phases (reference §6 PhaseRow): advisory `phase:<key>` store rows saying where a track of work
 * stands, what comes next and who stewards it. Nothing is enforced by them, except that a room
 * may gate completing a phase (`gated_acts: ['phase_complete']`) to its owner and operators.
 */
import type { PhaseRow, StoreEntry } from '@keel/hub-client';
import { badRequest, forbidden } from '@keel/plugin-sdk';
import { adminsOf, type RoomAdminCheck } from '../room-admin.js';
import type { ChannelStore } from '../store/channel-store.js';
import type { ChannelMeta } from '../store/channel-meta.js';
import { prefixRule, type StoreRule } from '../store/store-rules.js';
import { capText, sanitize } from '../../text-rules.js';

export const PHASE_PREFIX = 'phase:';

/** A phase's stored value: the row's own fields (the rest come from the store row). */
type PhaseValue = Pick<PhaseRow, 'track' | 'current' | 'next' | 'status' | 'steward' | 'paths' | 'note'>;

const TEXT_FIELDS = ['track', 'current', 'next', 'steward', 'note'] as const;

function normalize(value: unknown): PhaseValue {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('a phase value must be an object {track, current, next, status, steward, paths, note}');
  const v = value as Record<string, unknown>;
  const out: Record<string, unknown> = { ...v };
  for (const field of TEXT_FIELDS) {
    if (v[field] !== undefined && typeof v[field] !== 'string') throw badRequest(`phase ${field} must be a string`);
    out[field] = capText(sanitize((v[field] as string | undefined) ?? ''), 500, `phase ${field}`);
  }
  const status = v.status ?? 'open';
  if (status !== 'open' && status !== 'complete') throw badRequest("phase status must be 'open' or 'complete'");
  out.status = status;
  if (v.paths !== undefined && (!Array.isArray(v.paths) || v.paths.some((p) => typeof p !== 'string'))) throw badRequest('phase paths must be a list of file paths');
  out.paths = (v.paths as string[] | undefined) ?? [];
  return out as unknown as PhaseValue;
}

export function toPhaseRow(entry: StoreEntry): PhaseRow {
  const v = normalizeStored(entry.value);
  return {
    channel: entry.channel, key: entry.key.slice(PHASE_PREFIX.length), track: v.track, current: v.current, next: v.next, status: v.status,
    steward: v.steward, paths: v.paths, note: v.note, declared_by: entry.updated_by, declared_at: entry.updated_at, version: entry.version,
  };
}

/** Stored rows were normalized on write; this only guards rows written before the rule existed. */
function normalizeStored(value: unknown): PhaseValue {
  try {
    return normalize(value);
  } catch {
    return { track: '', current: '', next: '', status: 'open', steward: '', paths: [], note: '' };
  }
}

export function phaseRows(store: ChannelStore, channel: string): PhaseRow[] {
  return store.withPrefix(channel, PHASE_PREFIX).map(toPhaseRow);
}

/** `<key>: <current> → <next> (<status>, steward <s>)`: the digest's one-line summary of a phase. */
export function phaseLine(p: PhaseRow): string {
  const next = p.next ? ` → ${p.next}` : '';
  const steward = p.steward ? `, steward ${p.steward}` : '';
  return `${p.key}: ${p.current || '(unset)'}${next} (${p.status}${steward})`;
}

export function phaseRule(meta: (channel: string) => ChannelMeta | undefined, isAdmin: RoomAdminCheck): StoreRule {
  return prefixRule(PHASE_PREFIX, ({ c, seat, key, value }) => {
    if (key.length === PHASE_PREFIX.length) throw badRequest("a phase key needs a name after 'phase:'");
    const phase = normalize(value);
    if (phase.status === 'complete' && meta(c.name)?.gated_acts?.includes('phase_complete') && !isAdmin(c, seat)) {
      throw forbidden(`completing a phase in '${c.name}' is a gated act (gated_acts: phase_complete): it is done by ${adminsOf(c)}`);
    }
    return phase;
  });
}
