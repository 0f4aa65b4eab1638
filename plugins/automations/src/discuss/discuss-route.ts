/** `POST /automations/{automation_id}/discuss` (seed 000 §4.8, reference gateway-surfaces §3.8). */
import { defineSchema, KEY_ID_MAX_LENGTH, route } from '@keel/plugin-sdk';
import type { Discussions } from './discussions.js';

const params = defineSchema({ type: 'object', required: ['automation_id'], properties: { automation_id: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });

const discussBody = (maxIdLength: number) => defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['request_id', 'occurrence_index', 'prompt'],
  properties: {
    request_id: { type: 'string', maxLength: maxIdLength, description: 'Your key for this discussion: the same key answers the same discussion again; with another occurrence or prompt it is 409 identity_conflict.' },
    occurrence_index: { type: 'integer', minimum: 1, description: 'The occurrence discussed (its `index` in GET .../occurrences).' },
    prompt: { type: 'string', description: 'The first user turn of the discussion.' },
  },
  examples: [{ request_id: 'why-did-7-fail', occurrence_index: 7, prompt: 'Why did this run fail?' }],
});

const discussResponse = defineSchema({
  type: 'object',
  required: ['session_id', 'run_id', 'session_kind', 'workspace_root', 'mounted_workspace'],
  properties: {
    session_id: { type: 'string', description: '`discussion-session:<run_id>`: later turns are POST /runs/start with this session_id.' },
    run_id: { type: 'string' },
    session_kind: { const: 'discussion' },
    workspace_root: { type: ['string', 'null'], description: "The discussion's own (writable) folder." },
    mounted_workspace: { type: ['string', 'null'], description: "The automation's folder, mounted read-only; null when the occurrence had none." },
  },
});

/** `maxIdLength`: the plugin's `limits.maxIdLength`, as for every request_id. */
export function discussRoutes(discussions: Discussions, maxIdLength: number) {
  return [
    route({
      method: 'POST',
      path: '/automations/:automation_id/discuss',
      tags: ['automations'],
      summary: "Open a discussion session on an occurrence: its workflow with its frozen inputs, seeded with the automation's conversation, the automation's folder mounted read-only",
      params,
      body: discussBody(maxIdLength),
      responses: { 200: { schema: discussResponse } },
      handler: ({ params: p, body, principal }) => discussions.open(principal, p.automation_id, body),
    }),
  ];
}
