/**
 * Identifiers the hub mints: message ids are ULIDs (26 Crockford base-32 characters, time-ordered),
 * seat keys are `agora_` + 48 hex characters (the hub keeps only their sha256), agent ids follow the
 * hub's slug grammar.
 */
import { createHash, randomBytes } from 'node:crypto';
import { randomPool } from './random-pool.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(nowMs = Date.now()): string {
  let time = '';
  for (let t = nowMs, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  const bytes = randomPool.take(16);
  let random = '';
  for (let i = 0; i < 16; i++) random += CROCKFORD[bytes[i]! % 32];
  return time + random;
}

export function newSeatKey(): string {
  return `agora_${randomBytes(24).toString('hex')}`;
}

export function newToken(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('hex')}`;
}

export function sha256Hex(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

const AGENT_ID = /^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$/;
const RESERVED_AGENT_IDS = new Set(['hub', 'all', 'operator']);

/** The refusal sentence for a bad agent id, or null when it is valid. */
export function agentIdProblem(id: string): string | null {
  if (!AGENT_ID.test(id) || id.includes('--')) {
    return `agent id '${id}' is not valid — use 1 to 64 lowercase letters, digits, '_' or '-', starting and ending with a letter or digit, without '--'`;
  }
  if (RESERVED_AGENT_IDS.has(id)) return `agent id '${id}' is reserved by the hub`;
  return null;
}

/** Seconds since the epoch as a float, the hub's timestamp unit. */
export function nowSeconds(nowMs = Date.now()): number {
  return nowMs / 1000;
}
