/** Validates every plugin's config against its schema, defaults applied, all problems at once. */
import { BootError } from '../boot-error.js';
import type { SchemaValidator } from '../validation/validator.js';
import type { LoadedPlugin } from './load-plugins.js';

/** `earlier`: problems already found (plugins that could not load), reported in the same error. */
export function validatePluginConfigs(plugins: LoadedPlugin[], validator: SchemaValidator, label: string, earlier: string[] = []): Map<string, unknown> {
  const configs = new Map<string, unknown>();
  const problems = [...earlier];
  for (const entry of plugins) {
    const config = structuredClone(entry.rawConfig);
    const schema = entry.plugin.configSchema?.json;
    if (schema) {
      const found = validator.check(schema, config, `${entry.configKey}.config`);
      problems.push(...found.map((p) => `${label}: ${p.field} ${p.message} (plugin '${entry.plugin.id}').`));
    }
    configs.set(entry.plugin.id, config);
  }
  if (problems.length) throw new BootError(problems);
  return configs;
}
