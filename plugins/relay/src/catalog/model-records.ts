/**
 * The model records of `GET /v1/models` (reference §1.4): OpenAI's `{id, object, created, owned_by}`
 * plus the `relay` block (seed §2C) telling a client what the id supports and where it comes from.
 */
import type { CatalogEntry } from './upstream-catalog.js';
import type { CliModel } from './catalog-sources.js';

export type DiscoverySource = 'upstream_catalog' | 'cli_catalog' | 'configured';

export interface RelayModelBlock {
  provider: 'hosted' | 'cli';
  upstream_model: string;
  capabilities: { routes: Record<'responses' | 'chat_completions' | 'completions' | 'files' | 'conversations' | 'subscription_status', boolean>; stateful_conversations: boolean };
  reasoning: { parameter: 'reasoning_effort'; modes: string[]; default: string | null };
  structured_output: { parameter: 'response_format'; types: string[] };
  discovery_source: DiscoverySource;
  resolved_model: string;
  display_name: string;
  account_availability: { supported: number; total: number } | null;
  catalog_visibility: string;
  description: string | null;
}

export interface ModelRecord {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  relay: RelayModelBlock;
}

/** The reasoning efforts each runtime accepts (the hosted upstream refuses `minimal`; the client's default is its own). */
export const HOSTED_REASONING = { parameter: 'reasoning_effort' as const, modes: ['none', 'low', 'medium', 'high', 'xhigh'], default: 'none' };
export const CLI_REASONING = { parameter: 'reasoning_effort' as const, modes: ['low', 'medium', 'high', 'xhigh', 'max'], default: null };

/**
 * A hosted record. `supported` counts the accounts whose catalog lists the id (an extra id counts
 * every account whose catalog was read: the operator confirmed the upstream serves it unlisted).
 */
export function hostedRecord(id: string, entry: CatalogEntry | null, availability: { supported: number; total: number }): ModelRecord {
  return {
    id,
    object: 'model',
    created: entry?.created ?? 0,
    owned_by: 'relay-hosted-subscription',
    relay: {
      provider: 'hosted',
      upstream_model: id,
      capabilities: { routes: { responses: true, chat_completions: true, completions: true, files: true, conversations: true, subscription_status: true }, stateful_conversations: true },
      reasoning: { ...HOSTED_REASONING, modes: [...HOSTED_REASONING.modes] },
      structured_output: { parameter: 'response_format', types: ['json_schema'] },
      discovery_source: entry ? 'upstream_catalog' : 'configured',
      resolved_model: id,
      display_name: entry?.displayName ?? id,
      account_availability: availability,
      catalog_visibility: entry ? entry.visibility ?? 'listed' : 'unlisted',
      description: entry?.description ?? null,
    },
  };
}

/** A local command-line client record: text routes only, stateless, no account pool. */
export function cliRecord(model: CliModel): ModelRecord {
  return {
    id: model.id,
    object: 'model',
    created: 0,
    owned_by: 'relay-cli-subscription',
    relay: {
      provider: 'cli',
      upstream_model: model.upstreamModel,
      capabilities: { routes: { responses: false, chat_completions: true, completions: true, files: false, conversations: false, subscription_status: false }, stateful_conversations: false },
      reasoning: { ...CLI_REASONING, modes: [...CLI_REASONING.modes] },
      structured_output: { parameter: 'response_format', types: ['json_schema', 'json_object'] },
      discovery_source: model.source,
      resolved_model: model.resolvedModel,
      display_name: model.displayName ?? model.id,
      account_availability: null,
      catalog_visibility: 'listed',
      description: model.description ?? null,
    },
  };
}
