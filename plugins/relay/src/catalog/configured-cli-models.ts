/**
 * The local command-line client's models from the setting `cli.models` (ids without the prefix),
 * for the catalog when the client lane's discovery is not wired: configured ids are the fallback of
 * discovery (reference §4.2), listed as `cli:<id>`.
 */
import type { RelayConfig } from '../config.js';
import type { CliModels } from './catalog-sources.js';

export function configuredCliModels(config: RelayConfig['cli']): CliModels {
  const models = [...new Set(config.models)].map((name) => ({ id: `cli:${name}`, upstreamModel: name, resolvedModel: name, source: 'configured' as const }));
  return { enabled: config.enabled, models: () => Promise.resolve(config.enabled ? models : []) };
}
