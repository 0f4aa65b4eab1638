/**
 * The answers of the bundle list and the workflow catalog (seed 000 §2.4), declared as response
 * schemas: documented in `/openapi.json` and checked in tests (`server.validateResponses`).
 */
import { defineSchema } from '@keel/plugin-sdk';

const text = { type: 'string' } as const;

/** `default_agent_workflows` and `default_agent_workflows_unavailable`, which both listings carry. */
const agentDefaultsProperties = {
  default_agent_workflows: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['workflow_id', 'bundle_id', 'bundle_version', 'flow_id', 'registry_scope', 'name', 'source'],
      properties: { workflow_id: text, bundle_id: text, bundle_version: text, flow_id: text, registry_scope: text, name: text, source: text },
    },
  },
  default_agent_workflows_unavailable: {
    type: 'object',
    additionalProperties: { type: 'object', required: ['source', 'value', 'reason'], properties: { source: text, value: { type: ['string', 'null'] }, reason: text } },
  },
} as const;

/** Every entrypoint row says whether it is an agent default, and for which interfaces. */
const entrypointRow = {
  type: 'object',
  required: ['flow_id', 'is_agent_default', 'agent_default_interfaces'],
  properties: { flow_id: text, is_agent_default: { type: 'boolean' }, agent_default_interfaces: { type: 'array', items: text } },
} as const;

export const bundleListResponse = defineSchema({
  type: 'object',
  required: ['items', 'default_agent_workflows', 'default_agent_workflows_unavailable'],
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['bundle_id', 'bundle_version', 'source', 'description', 'entrypoints'],
        properties: {
          bundle_id: text, bundle_version: text, source: { enum: ['shipped', 'published', 'imported'] }, description: text,
          entrypoints: { type: 'array', items: entrypointRow },
        },
      },
    },
    ...agentDefaultsProperties,
  },
});

export const workflowCatalogResponse = defineSchema({
  type: 'object',
  required: ['items', 'count', 'default_agent_workflows', 'default_agent_workflows_unavailable'],
  properties: { items: { type: 'array', items: { type: 'object' } }, count: { type: 'integer', minimum: 0 }, ...agentDefaultsProperties },
});
