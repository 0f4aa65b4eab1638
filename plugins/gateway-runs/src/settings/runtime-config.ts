/**
 * Runtime settings (seed 000 §2.4, §4.10 `/admin/runtime-config`; reference gateway-surfaces §6.3,
 * §7.1): values an admin saves while the gateway runs, kept in LMDB so a separate `keel runner` and
 * a restart read the same. A plugin that owns a setting (`skills.shelf`, `agents.default_workflow.*`)
 * defines it here in its setup: how a saved value is checked, and the rows the admin route shows.
 */
import type { Database } from 'lmdb';
import { prefixRange, token, type PluginStorage, type Principal } from '@keel/plugin-sdk';

/** One row of `GET /admin/runtime-config`: `key` and whatever the setting's owner shows. */
export interface RuntimeConfigRow {
  key: string;
  [field: string]: unknown;
}

export interface RuntimeSettingDefinition {
  /** An exact key (`skills.shelf`), or with `family` a prefix ending in '.' (`agents.default_workflow.`) owning every key below it. */
  key: string;
  family?: boolean;
  /**
   * Checks and normalises a value an admin saves (`key` is the full key, for a family); throws an
   * HttpError 400 with a sentence naming the key to refuse it. `null` never reaches it: it removes the
   * saved value (back to the built-in). `principal` is the admin saving it (a value that resolves
   * against what that admin can see, such as a workflow reference, is checked as them).
   */
  check(value: unknown, key: string, principal?: Principal): unknown;
  /** The rows the admin route shows for this setting: one for a key, one per member of a family. */
  rows(principal: Principal): RuntimeConfigRow[];
}

/** A saved value as stored: the value, when and by whom. */
export interface SavedSetting {
  value: unknown;
  saved_at: string;
  saved_by: string;
}

export interface RuntimeConfig {
  /** Defines a setting (in a plugin's setup); two owners of one key are an error at boot. */
  define(definition: RuntimeSettingDefinition): void;
  /** The definition owning `key` (exact key first, else the longest family prefix), or undefined. */
  definitionOf(key: string): RuntimeSettingDefinition | undefined;
  definitions(): RuntimeSettingDefinition[];
  /** The saved value of `key`, or undefined when none is saved; read from storage each time. */
  get(key: string): unknown;
  saved(key: string): SavedSetting | undefined;
  /** Every saved key starting with `prefix`, with its value. */
  savedUnder(prefix: string): Record<string, unknown>;
  /** Saves `value` (already checked by the owner), or removes the saved value when `value` is null. */
  set(key: string, value: unknown, by: string): Promise<void>;
}

export const runtimeConfigToken = token<RuntimeConfig>('gateway.runtime-config');

export class RuntimeConfigStore implements RuntimeConfig {
  private readonly values: Database<SavedSetting, string>;
  private readonly owners = new Map<string, RuntimeSettingDefinition>();

  constructor(storage: PluginStorage) {
    this.values = storage.openDB<SavedSetting, string>('runtime-config');
  }

  define(definition: RuntimeSettingDefinition): void {
    if (definition.family && !definition.key.endsWith('.')) throw new Error(`A setting family's key ends with '.': '${definition.key}'.`);
    if (this.owners.has(definition.key)) throw new Error(`The runtime setting '${definition.key}' is defined twice.`);
    this.owners.set(definition.key, definition);
  }

  definitionOf(key: string): RuntimeSettingDefinition | undefined {
    const exact = this.owners.get(key);
    if (exact && !exact.family) return exact;
    let best: RuntimeSettingDefinition | undefined;
    for (const def of this.owners.values()) {
      if (def.family && key.startsWith(def.key) && key.length > def.key.length && (!best || def.key.length > best.key.length)) best = def;
    }
    return best;
  }

  definitions(): RuntimeSettingDefinition[] {
    return [...this.owners.values()];
  }

  get(key: string): unknown {
    return this.values.get(key)?.value;
  }

  saved(key: string): SavedSetting | undefined {
    return this.values.get(key);
  }

  savedUnder(prefix: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const { key, value } of this.values.getRange(prefixRange(prefix))) out[key] = value.value;
    return out;
  }

  async set(key: string, value: unknown, by: string): Promise<void> {
    if (value === null) await this.values.remove(key);
    else await this.values.put(key, { value, saved_at: new Date().toISOString(), saved_by: by });
  }
}
