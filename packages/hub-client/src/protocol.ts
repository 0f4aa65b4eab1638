// The protocol string: one string is the hub's whole capability statement. The client compares it
// with its own and warns on a mismatch, never refuses (seed §9).

import type { Health } from './types/identity.js';

/** The hub protocol this client speaks. */
export const PROTOCOL = 'agora/0.4';

/** A warning sentence when the hub advertises another protocol (or none); null when it matches. Never throws. */
export function check_protocol(health: Partial<Health> | null | undefined): string | null {
  const served = health && typeof health === 'object' ? health.protocol : undefined;
  if (typeof served !== 'string' || served === '') return `hub did not advertise a protocol (client speaks ${PROTOCOL})`;
  if (served === PROTOCOL) return null;
  return `protocol ${served} ≠ ${PROTOCOL}`;
}
