/** `manual@1`: config `{}`; the automation runs only on `automation.run_now` (reference §3.4). */
import { configObject } from './config-fields.js';
import { eventSchema } from './event-schemas.js';
import type { TriggerSource } from './trigger-source.js';

export const manualSource: TriggerSource = {
  record: {
    id: 'manual',
    version: 1,
    label: 'Manual',
    capabilities: { kind: 'manual' },
    config_schema: { type: 'object', description: 'No fields: the automation runs only when asked (automation.run_now).', properties: {}, additionalProperties: false },
    event_schema: eventSchema('A manual run (event id manual:<command_id>).', {}, ['command_id']),
    available: true,
  },
  normalise(config) {
    configObject(config, [], 'manual@1');
    return {};
  },
};
