/**
 * `email.received@1` (reference §3.4): a built-in source of the origin, listed here so clients see
 * it, but unavailable: Keel has no mail inbox (no event inbox for email), so a definition naming it
 * is refused with 422 `unsupported_feature` — as the origin refuses it on a runtime without one.
 */
import { triggerRefusal } from './refusal.js';
import type { TriggerSource } from './trigger-source.js';
import { eventSchema } from './event-schemas.js';

export const EMAIL_UNAVAILABLE = 'Keel has no mail inbox to watch; use an event@1 trigger fed by emit_event instead';

export const emailReceivedSource: TriggerSource = {
  record: {
    id: 'email.received',
    version: 1,
    label: 'Email received',
    capabilities: { kind: 'event' },
    config_schema: {
      type: 'object',
      additionalProperties: false,
      description: 'Not available on Keel (no mail inbox).',
      properties: {
        folder: { type: 'string' },
        uses_model: { type: 'boolean', default: true },
        every: { type: 'string', pattern: '^[1-9][0-9]*[smhd]$' },
        max_batch: { type: 'integer', minimum: 1 },
        filter: {
          type: 'object',
          additionalProperties: false,
          properties: {
            from_in: { type: 'array', items: { type: 'string' } },
            from_domain_in: { type: 'array', items: { type: 'string' } },
            to_in: { type: 'array', items: { type: 'string' } },
            subject_contains: { type: 'string' },
            has_attachment: { type: 'boolean' },
          },
        },
      },
    },
    event_schema: eventSchema('A batch of received emails (content_trust: untrusted).', { emails: { type: 'array', items: { type: 'object' } } }, []),
    available: false,
    unavailable_reason: EMAIL_UNAVAILABLE,
  },
  normalise() {
    throw triggerRefusal('unsupported_feature', `The trigger source email.received@1 is not available here: ${EMAIL_UNAVAILABLE}.`, 'trigger.source_id');
  },
};
