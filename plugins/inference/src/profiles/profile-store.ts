/**
 * Provider connection profiles (seed 000 §2.10), stored per account: a reusable endpoint with a
 * server-held key that is never returned. Enabled profiles become providers `endpoint:<name>`.
 */
import { randomUUID } from 'node:crypto';
import { prefixRange, conflict, notFound, type Clock, type PluginStorage } from '@keel/plugin-sdk';
import type { SecretBox } from './secret-box.js';

export type ProfileKind = 'cloud' | 'local' | 'compatible';

export interface StoredProfile {
  profile_id: string;
  account: string;
  name: string;
  kind: ProfileKind;
  base_url: string;
  enabled: boolean;
  /** Fixed allowlist; empty means the endpoint's live catalog. */
  models: string[];
  default_model: string | null;
  sealed_key: string | null;
  created_at: string;
  updated_at: string;
}

/** What clients see: everything but the key, which is reduced to whether there is one. */
export type ProfileView = Omit<StoredProfile, 'sealed_key'> & { provider: string; has_api_key: boolean };

export interface ProfileInput {
  name?: string;
  kind?: ProfileKind;
  base_url?: string;
  enabled?: boolean;
  models?: string[];
  default_model?: string | null;
  /** A new key; null removes it; absent keeps it. */
  api_key?: string | null;
}

export class ProfileStore {
  private readonly db;

  constructor(private readonly storage: PluginStorage, private readonly box: SecretBox, private readonly clock: Clock) {
    this.db = storage.openDB<StoredProfile, [string, string]>('profiles');
  }

  list(account: string): StoredProfile[] {
    return [...this.db.getRange(prefixRange([account])).map(({ value }) => value)];
  }

  get(account: string, profileId: string): StoredProfile {
    const profile = this.db.get([account, profileId]);
    if (!profile) throw notFound(`Profile '${profileId}' does not exist.`, { code: 'profile_not_found' });
    return profile;
  }

  async create(account: string, input: Required<Pick<ProfileInput, 'name' | 'base_url'>> & ProfileInput): Promise<StoredProfile> {
    const now = this.clock.now().toISOString();
    const profile: StoredProfile = {
      profile_id: randomUUID(),
      account,
      name: input.name,
      kind: input.kind ?? 'compatible',
      base_url: input.base_url,
      enabled: input.enabled ?? true,
      models: input.models ?? [],
      default_model: input.default_model ?? null,
      sealed_key: input.api_key ? this.box.seal(input.api_key) : null,
      created_at: now,
      updated_at: now,
    };
    await this.storage.transaction(() => {
      this.assertNameFree(account, profile.name, null);
      void this.db.put([account, profile.profile_id], profile);
    });
    return profile;
  }

  async update(account: string, profileId: string, input: ProfileInput): Promise<StoredProfile> {
    return this.storage.transaction(() => {
      const current = this.get(account, profileId);
      if (input.name !== undefined) this.assertNameFree(account, input.name, profileId);
      const next: StoredProfile = {
        ...current,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.kind !== undefined ? { kind: input.kind } : {}),
        ...(input.base_url !== undefined ? { base_url: input.base_url } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.models !== undefined ? { models: input.models } : {}),
        ...(input.default_model !== undefined ? { default_model: input.default_model } : {}),
        sealed_key: input.api_key === undefined ? current.sealed_key : input.api_key === null ? null : this.box.seal(input.api_key),
        updated_at: this.clock.now().toISOString(),
      };
      void this.db.put([account, profileId], next);
      return next;
    });
  }

  async remove(account: string, profileId: string): Promise<void> {
    await this.storage.transaction(() => {
      this.get(account, profileId);
      void this.db.remove([account, profileId]);
    });
  }

  /** The decrypted key, for calls to the endpoint only. */
  apiKey(profile: StoredProfile): string | null {
    return profile.sealed_key ? this.box.open(profile.sealed_key) : null;
  }

  static view(profile: StoredProfile): ProfileView {
    const { sealed_key, ...rest } = profile;
    return { ...rest, provider: `endpoint:${profile.name}`, has_api_key: sealed_key !== null };
  }

  private assertNameFree(account: string, name: string, except: string | null): void {
    const clash = this.list(account).find((p) => p.name === name && p.profile_id !== except);
    if (clash) throw conflict(`A profile named '${name}' already exists.`, { code: 'profile_exists', field: 'body.name' });
  }
}
