/**
 * `GET/PUT /admin/runtime-config` (seed 000 §2.4, §4.10; reference gateway-surfaces §6.3): the
 * runtime settings every plugin defined in the store, as rows, and the admin's changes to them.
 * Each key's owner checks its value (400 naming the key); a PUT changes all of its keys or none.
 */
import { badRequest, defineSchema, KEY_ID_MAX_LENGTH, route, type Principal } from '@keel/plugin-sdk';
import type { RuntimeConfig, RuntimeConfigRow } from '../settings/runtime-config.js';

const putBody = defineSchema({
  type: 'object',
  required: ['values'],
  additionalProperties: false,
  properties: { values: { type: 'object', description: 'setting key → new value, or null to remove the saved value (back to the built-in default)' } },
  examples: [{ values: { 'agents.default_workflow.abstractcode.agent.v1': 'keel-chat:keel-chat', 'agents.streaming_default': true } }],
});

const rowJson = {
  type: 'object',
  required: ['key', 'saved_at', 'saved_by'],
  properties: { key: { type: 'string' }, saved_at: { type: ['string', 'null'] }, saved_by: { type: ['string', 'null'] } },
} as const;
const configResponse = defineSchema({
  type: 'object',
  required: ['items', 'count'],
  properties: { items: { type: 'array', items: rowJson }, count: { type: 'integer', minimum: 0 } },
});

export function runtimeConfigRoutes(store: RuntimeConfig) {
  /** Every defined setting's rows for this admin, each with when and by whom its value was saved. */
  const answer = (principal: Principal) => {
    const items: RuntimeConfigRow[] = [];
    for (const def of [...store.definitions()].sort((a, b) => a.key.localeCompare(b.key))) {
      for (const row of def.rows(principal)) {
        const saved = store.saved(row.key);
        items.push({ ...row, saved_at: saved?.saved_at ?? null, saved_by: saved?.saved_by ?? null });
      }
    }
    return { items, count: items.length };
  };
  return [
    route({
      method: 'GET',
      path: '/admin/runtime-config',
      auth: 'admin',
      tags: ['settings'],
      summary: 'Runtime settings (agents.default_workflow.<interface>, agents.streaming_default, ...): one row per key with its state, value and reason',
      responses: { 200: { schema: configResponse } },
      handler: ({ principal }) => answer(principal),
    }),
    route({
      method: 'PUT',
      path: '/admin/runtime-config',
      auth: 'admin',
      tags: ['settings'],
      summary: 'Save runtime settings: {values: {<key>: <value or null>}}; every key checked by its owner before any is saved',
      body: putBody,
      responses: { 200: { schema: configResponse } },
      handler: async ({ body, principal }) => {
        const entries = Object.entries(body.values);
        if (entries.length === 0) throw badRequest('values names no setting; send {"values": {"<key>": <value or null>}}.', { code: 'invalid_request', field: 'body.values' });
        const checked: Array<[string, unknown]> = [];
        for (const [key, value] of entries) {
          if (key.length > KEY_ID_MAX_LENGTH) throw badRequest(`The setting key '${key.slice(0, 64)}…' is longer than ${KEY_ID_MAX_LENGTH} characters.`, { code: 'invalid_setting', field: 'body.values' });
          const def = store.definitionOf(key);
          if (!def) {
            const known = store.definitions().map((d) => (d.family ? `${d.key}<…>` : d.key)).sort().join(', ');
            throw badRequest(`'${key}' is not a runtime setting; the settings are ${known}.`, { code: 'unknown_setting', field: key });
          }
          checked.push([key, value === null ? null : def.check(value, key, principal)]);
        }
        for (const [key, value] of checked) await store.set(key, value, principal.account);
        return answer(principal);
      },
    }),
  ];
}
