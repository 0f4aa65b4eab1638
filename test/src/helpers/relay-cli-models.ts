/**
 * A stand-in for the local client's model discovery in catalog unit tests: the setting `cli.models`
 * listed as `cli:<id>`, all `configured` (what the real client answers when discovery fails).
 */
import type { CliModels } from '../../../plugins/relay/dist/catalog/catalog-sources.js';
import type { RelayConfig } from '@keel/plugin-relay';

export function configuredCliModels(config: RelayConfig['cli']): CliModels {
  const models = [...new Set(config.models)].map((name) => ({ id: `cli:${name}`, upstreamModel: name, resolvedModel: name, source: 'configured' as const }));
  return { enabled: config.enabled, models: () => Promise.resolve(config.enabled ? models : []) };
}
