/**
 * `event@1`: fires when an event named `name` is emitted (`emit_event` through POST /commands) by
 * the automation's owner, optionally only for one session. Matching compares the name and the
 * session; the engine delivers only events of the owner's account (it compares `event.account`
 * with the automation record's before calling `matches`).
 */
import { configObject, fieldOf } from './config-fields.js';
import { eventSchema } from './event-schemas.js';
import { triggerRefusal } from './refusal.js';
import type { TriggerEvent, TriggerSource } from './trigger-source.js';

export const EVENT_NAME_MAX = 200;
export const EVENT_SESSION_MAX = 200;

export const eventSource: TriggerSource = {
  record: {
    id: 'event',
    version: 1,
    label: 'Event',
    capabilities: { kind: 'event' },
    config_schema: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: EVENT_NAME_MAX, description: 'The event name an emit_event command carries (payload.name).' },
        session_id: { type: 'string', minLength: 1, maxLength: EVENT_SESSION_MAX, description: 'Only events emitted for this session (default: any of the owner\'s).' },
      },
    },
    event_schema: eventSchema('An emitted event: each one fires the automation at most once.', {
      event: {
        type: 'object',
        required: ['event_id', 'name', 'session_id', 'payload', 'emitted_at'],
        properties: {
          event_id: { type: 'string' },
          name: { type: 'string' },
          session_id: { type: 'string' },
          payload: { type: 'object', description: 'The emit_event command\'s payload.payload.' },
          emitted_at: { type: 'string', format: 'date-time' },
          command_id: { type: 'string', description: 'The emit_event command.' },
        },
      },
    }, ['event']),
    available: true,
  },
  normalise(config) {
    const object = configObject(config, ['name', 'session_id'], 'event@1');
    const name = object.name;
    if (typeof name !== 'string' || name.trim().length === 0 || name.length > EVENT_NAME_MAX) {
      throw triggerRefusal('invalid_definition', `name is required: the event name to wait for, 1 to ${EVENT_NAME_MAX} characters.`, fieldOf('name'));
    }
    const normalised: Record<string, unknown> = { name };
    if (object.session_id !== undefined) {
      const sessionId = object.session_id;
      if (typeof sessionId !== 'string' || sessionId.length === 0 || sessionId.length > EVENT_SESSION_MAX) {
        throw triggerRefusal('invalid_definition', `session_id must be a session id of 1 to ${EVENT_SESSION_MAX} characters (or left out for any session).`, fieldOf('session_id'));
      }
      normalised.session_id = sessionId;
    }
    return normalised;
  },
  matches(config, event: TriggerEvent) {
    if (event.name !== config.name) return false;
    return typeof config.session_id !== 'string' || event.session_id === config.session_id;
  },
  envelope(event: TriggerEvent) {
    return {
      event: { event_id: event.event_id, name: event.name, session_id: event.session_id, payload: event.payload, emitted_at: event.emitted_at, command_id: event.command_id },
    };
  },
};
