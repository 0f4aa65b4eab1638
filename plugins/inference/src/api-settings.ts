/**
 * Admin-managed settings of the OpenAI-compatible API: on or off, and the default chat and
 * embedding models. Kept in LMDB so they survive a restart; the config gives the first values.
 */
import type { Clock, PluginStorage } from '@keel/plugin-sdk';

export interface ApiSettingsRecord {
  enabled: boolean;
  default_chat_model: string;
  default_embedding_model: string;
  updated_at: string | null;
  updated_by: string | null;
}

const KEY = 'openai-api';

export class ApiSettings {
  private readonly db;
  private current: ApiSettingsRecord;

  constructor(storage: PluginStorage, private readonly clock: Clock, initial: Omit<ApiSettingsRecord, 'updated_at' | 'updated_by'>) {
    this.db = storage.openDB<ApiSettingsRecord, string>('settings');
    this.current = this.db.get(KEY) ?? { ...initial, updated_at: null, updated_by: null };
  }

  get(): ApiSettingsRecord {
    return this.current;
  }

  async update(changes: Partial<Pick<ApiSettingsRecord, 'enabled' | 'default_chat_model' | 'default_embedding_model'>>, by: string): Promise<ApiSettingsRecord> {
    const next = { ...this.current, ...changes, updated_at: this.clock.now().toISOString(), updated_by: by };
    await this.db.put(KEY, next);
    this.current = next;
    return next;
  }
}
