/**
 * `provider_models` ("Models Catalog", reference runtime-nodes §3.5): the models a provider lists,
 * filtered by capability route and allow-list, as bare names. Pure: read from the background
 * listing (models/model-listing.ts), never waiting for a catalog.
 */
import { isRecord } from './effect-requests.js';
import { pureNode, type PureNodeType } from './node-types.js';
import type { ListedModel } from '../models/model-listing.js';

/** What a capability route asks of a model, by the kinds Keel's providers report. */
const ROUTES: Record<string, string> = {
  'output.text': 'chat',
  'input.text': 'chat',
  text: 'chat',
  chat: 'chat',
  'output.embedding': 'embedding',
  'output.embeddings': 'embedding',
  embedding: 'embedding',
  embeddings: 'embedding',
};

export function providerModelsNode(listing: { models(account: string, provider: string): ListedModel[] | null }): PureNodeType {
  return pureNode((inputs, node, scope) => {
    const config = isRecord(node.data.providerModelsConfig) ? node.data.providerModelsConfig : {};
    const provider = text(inputs.provider) || text(config.provider);
    if (!provider) return { provider: '', models: [] };
    let models = listing.models(scope.account, provider) ?? [];
    const route = firstPresent(inputs.capability_route, config.capabilityRoute, config.capability_route, config.capability_routes);
    if (route !== undefined) {
      const routes = (Array.isArray(route) ? route : [route]).map((r) => String(r).trim()).filter(Boolean);
      const unknown = routes.filter((r) => !(r in ROUTES));
      if (unknown.length) return { provider, models: [], error: `Invalid capability_route filter: ${unknown.join(', ')} (known: ${Object.keys(ROUTES).join(', ')})` };
      models = models.filter((m) => routes.every((r) => m.kinds.includes(ROUTES[r]!)));
    }
    const allow = firstPresent(inputs.allowed_models, config.allowedModels, config.allowed_models);
    const allowed = Array.isArray(allow) ? allow.map(String) : typeof allow === 'string' && allow.trim() ? allow.split(',').map((s) => s.trim()) : null;
    if (allowed && allowed.length) models = models.filter((m) => allowed.includes(m.name) || allowed.includes(`${provider}/${m.name}`));
    return { provider, models: models.map((m) => m.name) };
  });
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : value === null || value === undefined ? '' : String(value).trim();
}

function firstPresent(...values: unknown[]): unknown {
  return values.find((v) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0));
}
