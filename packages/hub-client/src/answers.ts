// What HubClient makes of an answer, where a method does more than return it: the identity summary
// read from `/whoami`, the one message out of a read's list, and a refusal that means "nothing here".

import { HubError, hasStatus } from './errors.js';
import type { Meta, WhoamiReport } from './types/identity.js';
import type { Message } from './types/messages.js';

/** The identity summary of a `/whoami` answer (seed §2.3). */
export function metaOf(hub_url: string, who: WhoamiReport): Meta {
  const seat = typeof who?.id === 'string' && who.id !== '' ? who.id : null;
  return {
    ok: true,
    hub_url,
    seat,
    seat_key_present: seat !== null,
    operator: who?.operator === true,
    mission: typeof who?.mission === 'string' ? who.mission : '',
    hub_charter: who?.hub_charter && typeof who.hub_charter === 'object' ? who.hub_charter : null,
  };
}

/** The identity summary when the hub refuses the key (401/403): "no usable key", never an error. */
export function signedOutMeta(hub_url: string): Meta {
  return { ok: false, hub_url, seat: null, seat_key_present: false, operator: false, mission: '', hub_charter: null };
}

/**
 * The requested message of a read: the hub answers a list (unread ancestors, then the message), so
 * this is the element whose id is the requested one (else the last one).
 */
export function messageOf(answer: Message | Message[], id: string): Message {
  if (!Array.isArray(answer)) return answer;
  const found = answer.find((row) => row?.id === id) ?? answer[answer.length - 1];
  if (!found) throw new HubError('read_message', `the hub answered no row for message '${id}'`);
  return found;
}

/** The answer, or `fallback` when the hub refuses with one of `statuses`; any other failure is rethrown. */
export async function unlessStatus<T, F>(pending: Promise<T>, statuses: number[], fallback: F): Promise<T | F> {
  try {
    return await pending;
  } catch (err) {
    if (hasStatus(err, ...statuses)) return fallback;
    throw err;
  }
}
