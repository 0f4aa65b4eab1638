// The hub's admin and operator routes (reference §8.2) and the hub charter's history (§8.4): their
// queries and the shapes they answer with. Response schemas leave `additionalProperties` open.

import type { WireInput, WireValue } from './infer.js';

const stringList = { type: 'array', items: { type: 'string' } } as const;
const nullableNumber = { type: ['number', 'null'] } as const;
const count = { type: 'integer', minimum: 0 } as const;

/** `PUT /admin/rules {text}` (and `PUT /admin/charter`, whose body is `charterReplaceBody`). */
export const hubRulesBody = { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } as const;
export type HubRulesBody = WireInput<typeof hubRulesBody>;

/** `GET /charter/history?limit=` (clamped to 1..500; not an integer → 422). */
export const charterHistoryQuery = { type: 'object', properties: { limit: { type: 'integer', default: 50 } } } as const;
export type CharterHistoryQuery = WireInput<typeof charterHistoryQuery>;

/** `GET /charter/versions/{version}`. */
export const charterVersionParams = { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } } as const;

/** `GET /admin/noise?hours=` (a number, clamped to 1..336; not a number → 422). */
export const noiseQuery = { type: 'object', properties: { hours: { type: 'number', default: 24 } } } as const;
export type NoiseQuery = WireInput<typeof noiseQuery>;

/** `GET /admin/charter`: the charter in force, not cut and without a receipt. */
export const adminCharterResponse = {
  type: 'object', required: ['version', 'text', 'updated_by', 'updated_at', 'packaged'],
  properties: { version: count, text: { type: 'string' }, updated_by: { type: 'string' }, updated_at: { type: 'number' }, packaged: { type: 'boolean' } },
} as const;
export type AdminCharter = WireValue<typeof adminCharterResponse>;

/** `PUT /admin/charter`: the published version and which seat kinds the text leaves out. */
export const adminCharterPublishedResponse = {
  type: 'object', required: ['version', 'missing_roles', 'sliceable', 'unsectioned_roles'],
  properties: { version: { type: 'integer', minimum: 1 }, missing_roles: stringList, sliceable: { type: 'boolean' }, unsectioned_roles: stringList },
} as const;
export type AdminCharterPublished = WireValue<typeof adminCharterPublishedResponse>;

/** `GET /admin/charter/receipts`: every seat's latest read, newest version first. */
export const hubCharterReceiptsResponse = {
  type: 'object', required: ['scope', 'version', 'readers'],
  properties: {
    scope: { const: 'hub' }, version: count,
    readers: {
      type: 'array',
      items: {
        type: 'object', required: ['agent_id', 'version', 'read_at', 'view', 'current'],
        properties: { agent_id: { type: 'string' }, version: count, read_at: { type: 'number' }, view: { type: ['string', 'null'] }, current: { type: 'boolean' } },
      },
    },
  },
} as const;
export type HubCharterReceipts = WireValue<typeof hubCharterReceiptsResponse>;

/** `GET /admin/rules`. */
export const hubRulesResponse = { type: 'object', required: ['version', 'text'], properties: { version: count, text: { type: 'string' } } } as const;
/** `PUT /admin/rules`. */
export const hubRulesSetResponse = { type: 'object', required: ['version'], properties: { version: { type: 'integer', minimum: 1 } } } as const;

/** `GET /admin/delegations`: the live grants (reference §6 Delegation). */
export const delegationListResponse = {
  type: 'array',
  items: {
    type: 'object', required: ['agent_id', 'powers', 'granted_at', 'expires_at', 'note', 'scope'],
    properties: { agent_id: { type: 'string' }, powers: stringList, granted_at: { type: 'number' }, expires_at: { type: 'number' }, note: { type: 'string' }, scope: { type: 'string' } },
  },
} as const;

/** `GET /admin/slow`: requests that took at least the threshold, oldest first. */
export const slowRequestsResponse = {
  type: 'array',
  items: {
    type: 'object', required: ['method', 'path', 'seconds', 'at'],
    properties: { method: { type: 'string' }, path: { type: 'string' }, seconds: { type: 'number', minimum: 0 }, at: { type: 'number' } },
  },
} as const;
export type SlowRequestRows = WireValue<typeof slowRequestsResponse>;

/** `GET /admin/noise`. */
export const noiseResponse = {
  type: 'object', required: ['hours', 'channels', 'computed_at'],
  properties: {
    hours: { type: 'number' }, computed_at: { type: 'number' },
    channels: {
      type: 'array',
      items: {
        type: 'object',
        required: ['channel', 'members', 'messages', 'broadcast_opens', 'addressed_opens', 'wakes_old_rule', 'wakes_new_rule', 'multi_speaker_threads', 'avg_speakers_per_thread'],
        properties: {
          channel: { type: 'string' }, members: count, messages: count, broadcast_opens: count, addressed_opens: count,
          wakes_old_rule: count, wakes_new_rule: count, multi_speaker_threads: count, avg_speakers_per_thread: { type: 'number' },
        },
      },
    },
  },
} as const;
export type NoiseReport = WireValue<typeof noiseResponse>;

const fleetSnapshot = {
  type: 'object', required: ['eligible', 'live', 'live_fraction', 'collapsed', 'dark_episode', 'dark_seconds', 'open_claims', 'min_eligible'],
  properties: {
    eligible: count, live: count, live_fraction: { type: 'number' }, collapsed: { type: 'boolean' }, dark_episode: { type: 'boolean' },
    dark_seconds: count, open_claims: count, min_eligible: count,
  },
} as const;

/** `GET /admin/status` and `GET /status`: a delegate's rows have no `last_refusal` key. */
export const fleetStatusResponse = {
  type: 'object', required: ['fleet', 'agents'],
  properties: {
    fleet: fleetSnapshot,
    agents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['agent_id', 'state', 'reception', 'reception_age_minutes', 'deaf', 'unread', 'pending_obligations', 'oldest_pending_minutes',
          'owed_answers', 'escalated_owed', 'owed_consumption', 'acked_unanswered', 'silence_class', 'refused_sends_1h'],
        properties: {
          agent_id: { type: 'string' }, state: { type: 'string' }, reception: { enum: ['armed', 'stale', 'unknown'] }, reception_age_minutes: nullableNumber,
          deaf: { type: 'boolean' }, unread: count, pending_obligations: count, oldest_pending_minutes: nullableNumber,
          owed_answers: count, escalated_owed: count, owed_consumption: count, acked_unanswered: count,
          silence_class: { enum: ['dead', 'deaf', 'unseen', 'seen-and-ignored', null] }, refused_sends_1h: count,
          last_refusal: {
            type: ['object', 'null'], required: ['ts', 'channel', 'code', 'detail'],
            properties: { ts: { type: 'number' }, channel: { type: 'string' }, code: { type: 'integer' }, detail: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;
export type FleetStatusReport = WireValue<typeof fleetStatusResponse>;

/** `GET /charter/history`: published versions, newest first; `size` in characters. */
export const charterHistoryResponse = {
  type: 'array',
  items: {
    type: 'object', required: ['version', 'updated_by', 'updated_at', 'size'],
    properties: { version: { type: 'integer', minimum: 1 }, updated_by: { type: 'string' }, updated_at: { type: 'number' }, size: count },
  },
} as const;
export type CharterHistoryRows = WireValue<typeof charterHistoryResponse>;

/** `GET /charter/versions/{version}`: an archived text (version 0 is the packaged one). */
export const charterVersionResponse = {
  type: 'object', required: ['version', 'text', 'updated_by', 'updated_at'],
  properties: { version: count, text: { type: 'string' }, updated_by: { type: 'string' }, updated_at: { type: 'number' } },
} as const;
export type CharterVersion = WireValue<typeof charterVersionResponse>;

/** `GET /admin/doctor?agent=`: a non-empty `agent` narrows the report to one seat. */
export const doctorQuery = { type: 'object', properties: { agent: { type: 'string', maxLength: 200, default: '' } } } as const;
export type DoctorQuery = WireInput<typeof doctorQuery>;

/** `GET /admin/doctor`: counts, ages, titles and next steps (the README lists every field). */
export const doctorResponse = {
  type: 'object', required: ['now', 'scope', 'lookback_seconds', 'hub', 'seats', 'requests', 'hub_cannot_see'],
  properties: {
    now: { type: 'number' }, scope: { type: 'string' }, lookback_seconds: { type: 'number' },
    hub: {
      type: 'object',
      required: ['paused', 'sweeps', 'votes_past_deadline', 'open_hub_alerts', 'unclosed_silence_alerts', 'stale_claims', 'live_claims', 'fleet', 'notify_files', 'directive_epoch'],
      properties: { paused: { type: ['object', 'null'] }, sweeps: { type: 'object' }, stale_claims: count, live_claims: count, fleet: fleetSnapshot, notify_files: { type: 'boolean' } },
    },
    seats: {
      type: 'array',
      items: {
        type: 'object',
        required: ['agent_id', 'operator', 'delegate_powers', 'reachable', 'did_work', 'owes', 'working_on', 'held_up_by', 'silence_class', 'episodes'],
        properties: {
          agent_id: { type: 'string' }, operator: { type: 'boolean' }, delegate_powers: stringList,
          reachable: { type: 'object', required: ['presence', 'reception', 'reception_age_seconds', 'last_contact_seconds'] },
          did_work: { type: 'object', required: ['last_post_seconds', 'last_write_seconds', 'last_work_seconds', 'worked_within_lookback'] },
          owes: { type: 'object', required: ['to_answer', 'escalated', 'to_consume', 'to_close', 'oldest_seconds', 'acked_unanswered', 'waiting_on_others', 'charters_stale'] },
          working_on: { type: 'array', items: { type: 'object', required: ['channel', 'key', 'status', 'next_step', 'idle_seconds', 'next_ping_in_seconds'] } },
          held_up_by: { type: 'array', items: { type: 'object', required: ['kind'], properties: { kind: { enum: ['hub-block', 'retired', 'hub-paused', 'send-refused', 'claim-parked'] } } } },
          silence_class: { enum: ['dead', 'deaf', 'unseen', 'seen-and-ignored', null] },
          episodes: { type: 'object', required: ['dark_since', 'deaf_since', 'lurk_since'] },
        },
      },
    },
    requests: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'channel', 'seq', 'from', 'title', 'age_seconds', 'pending_asks', 'ask_progress', 'owned_by', 'owed_by', 'replied_by', 'owner_last_work_seconds', 'claims', 'outstanding_asks'],
        properties: {
          outstanding_asks: {
            type: 'array',
            items: {
              type: 'object', required: ['asker', 'where', 'ask', 'waiting_on', 'state', 'age_seconds'],
              properties: { state: { enum: ['retired', 'acked-past-no-reply', 'not-yet-served'] } },
            },
          },
        },
      },
    },
    hub_cannot_see: stringList,
  },
} as const;
export type DoctorReport = WireValue<typeof doctorResponse>;
