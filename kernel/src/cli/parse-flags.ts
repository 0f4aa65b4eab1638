/** Flag parsing shared by the commands (node:util parseArgs, unknown flags are usage errors). */
import { parseArgs } from 'node:util';
import { loadConfigFile, overridesFromEnv, type ConfigOverrides, type LoadedConfig } from '../config/load-config.js';
import { UsageError } from './usage-error.js';

/** Runs a parseArgs call, turning its complaints into usage errors. */
export function usage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export { parseArgs };

export const configFlags = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

/** The config file (flag, else KEEL_CONFIG, else the default) with env and flag overrides applied. */
export function configFromFlags(values: { config?: string; 'data-dir'?: string }, extra: ConfigOverrides = {}): LoadedConfig {
  const env = process.env;
  const overrides: ConfigOverrides = { ...overridesFromEnv(env), ...extra };
  if (values['data-dir'] !== undefined) overrides.dataDir = values['data-dir'];
  return loadConfigFile(values.config ?? env.KEEL_CONFIG, overrides);
}
