/**
 * Deterministic occurrence run ids (reference gateway-surfaces §3.1): the same occurrence always
 * gets the same run id, so a launch retried after a crash finds the run it started before.
 */
import { createHash } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 4122 version-5 (SHA-1, name-based) UUID of `name` in the namespace `namespace` (a UUID). */
export function uuid5(namespace: string, name: string): string {
  if (!UUID_PATTERN.test(namespace)) throw new TypeError(`uuid5: the namespace must be a UUID, not "${namespace}"`);
  const hash = createHash('sha1').update(Buffer.from(namespace.replace(/-/g, ''), 'hex')).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The uuid5 name of an occurrence's first attempt: `<revision>:<index>` (scheduled and event fires) or `manual:<command_id>`. */
export function firstAttemptName(fire: { kind: 'manual' | 'event' | 'schedule'; command_id?: string }, revision: number, index: number): string {
  return fire.kind === 'manual' && fire.command_id ? `manual:${fire.command_id}` : `${revision}:${index}`;
}

/** The run id of attempt `attempt` (1-based): attempt 1 is the name itself, attempt n ≥ 2 the name plus `:a<n>`. */
export function occurrenceRunId(automationId: string, firstName: string, attempt: number): string {
  return uuid5(automationId, attempt <= 1 ? firstName : `${firstName}:a${attempt}`);
}
