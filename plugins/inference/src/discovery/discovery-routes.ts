/** Discovery (seed 000 §4.7): providers (virtual endpoint providers included), their models, capabilities. */
import { notFound, route, defineSchema, KEY_ID_MAX_LENGTH } from '@keel/plugin-sdk';
import type { InferenceService } from '../inference-service.js';
import type { Provider } from '../providers/provider.js';
import { echoId } from '../echo-id.js';
import type { CapabilityBlocks } from './capability-blocks.js';

const providerParams = defineSchema({ type: 'object', required: ['provider_name'], properties: { provider_name: { type: 'string', minLength: 1, maxLength: KEY_ID_MAX_LENGTH } } });
const modelsQuery = defineSchema({ type: 'object', properties: { refresh: { type: 'boolean' } } });

export interface StreamingBlock {
  deltas: boolean;
  default: boolean;
  run_field: string;
  events: string[];
  subtree: boolean;
  endpoint: string;
  end_reasons: string[];
}

/** Run-stream facts (seed 000 §6) as the runs plugin serves them. */
export const STREAMING_BLOCK: StreamingBlock = {
  deltas: true,
  default: false,
  run_field: 'input_data._runtime.stream',
  events: ['step', 'llm.delta', 'llm.delta_end', 'done'],
  subtree: true,
  endpoint: '/api/gateway/runs/{run_id}/ledger/stream',
  end_reasons: ['completed', 'failed', 'cancelled', 'unavailable'],
};

function providerRow(p: Provider) {
  return { ...p.info, capabilities: p.info.kind === 'local' ? ['chat', 'completions', 'embeddings', 'streaming', 'structured_output'] : ['chat', 'completions', 'embeddings', 'streaming'] };
}

export function discoveryRoutes(service: InferenceService, openaiPrefix: () => string, apiEnabled: () => boolean, blocks?: CapabilityBlocks) {
  return [
    route({
      method: 'GET',
      path: '/discovery/providers',
      tags: ['discovery'],
      summary: 'Providers the caller can use, including enabled endpoint profiles as `endpoint:<name>`',
      handler: ({ principal }) => ({ providers: service.providers(principal.account).map(providerRow) }),
    }),
    route({
      method: 'GET',
      path: '/discovery/providers/:provider_name/models',
      tags: ['discovery'],
      summary: "A provider's models: local folders, a fixed allowlist, or the endpoint's live catalog",
      params: providerParams,
      query: modelsQuery,
      handler: async ({ params, query, principal }) => {
        const provider = service.provider(principal.account, params.provider_name);
        if (!provider) throw notFound(`Unknown provider '${echoId(params.provider_name)}'.`, { code: 'provider_not_found' });
        const models = await provider.listModels({ refresh: query.refresh ?? false });
        return { provider: provider.info.name, source: provider.info.catalog, models };
      },
    }),
    route({
      method: 'GET',
      path: '/discovery/capabilities',
      tags: ['discovery'],
      summary: 'What this gateway can do, including the run streaming block and the command types (runs.commands.types, automations.command_types)',
      handler: ({ principal }) => {
        const defaults = service.defaults();
        const answer: Record<string, unknown> = {
          providers: service.providers(principal.account).map((p) => p.info.name),
          inference: { chat: true, completions: true, embeddings: true, structured_output: true, streaming_tokens: true, tools: false },
          defaults: { chat_model: defaults.chat, embedding_model: defaults.embedding },
          openai_api: { enabled: apiEnabled(), base_path: openaiPrefix(), models_path: `${openaiPrefix()}/models` },
          streaming: STREAMING_BLOCK,
        };
        // Other plugins' blocks (runs.commands.types, automations.command_types).
        return blocks ? blocks.apply(answer) : answer;
      },
    }),
  ];
}
