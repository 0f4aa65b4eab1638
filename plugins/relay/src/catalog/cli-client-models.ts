/**
 * The catalog's view of the local command-line client lane (`CliClient` of `cli-client/`): its
 * `models({refresh})` lists `cli:<name>` ids (discovered, then the configured `cli.models`), and
 * `modelsSource()` says whether discovery answered. A name is `cli_catalog` when discovery answered
 * and the setting does not name it, else `configured`.
 */
import type { RelayConfig } from '../config.js';
import type { CliModels } from './catalog-sources.js';

/** What the catalog needs of the client lane. */
export interface CliModelLister {
  models(options: { refresh?: boolean }): Promise<string[]>;
  modelsSource(): { source: string };
}

export function cliClientModels(client: CliModelLister | null, config: RelayConfig['cli']): CliModels {
  const configured = new Set(config.models);
  return {
    enabled: config.enabled && client !== null,
    models: async ({ refresh }) => {
      if (!client) return [];
      const ids = await client.models({ refresh });
      const discovered = client.modelsSource().source !== 'configured';
      return ids.map((id) => {
        const name = id.replace(/^cli[:-]/, '');
        return { id: `cli:${name}`, upstreamModel: name, resolvedModel: name, source: discovered && !configured.has(name) ? 'cli_catalog' as const : 'configured' as const };
      });
    },
  };
}
