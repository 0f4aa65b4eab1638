/**
 * Which providers an account sees, and which provider and model a model id names:
 * `local/<model>`, `<endpoint>/<model>` (a configured endpoint), `endpoint:<profile>/<model>`
 * (one of the caller's enabled profiles), or a bare name (a local model, or `default`).
 */
import { notFound } from '@keel/plugin-sdk';
import type { ProfileStore, StoredProfile } from '../profiles/profile-store.js';
import { LOCAL_PROVIDER, type LocalProvider } from './local-provider.js';
import type { ModelKind, Provider } from './provider.js';
import { RemoteProvider } from './remote-provider.js';
import { echoId } from '../echo-id.js';

export interface ResolvedModel {
  provider: Provider;
  /** The provider's own model name. */
  model: string;
  /** The full id (`local/keel-tiny-chat`). */
  id: string;
}

export interface DefaultModels {
  chat(): string;
  embedding(): string;
}

export class ProviderRegistry {
  private readonly profileProviders = new Map<string, { version: string; provider: RemoteProvider }>();

  constructor(
    private readonly local: LocalProvider,
    private readonly configured: RemoteProvider[],
    private readonly profiles: ProfileStore,
    private readonly defaults: DefaultModels,
    private readonly catalogTtlMs: number,
    private readonly aliases: Record<string, string> = {},
  ) {}

  providersFor(account: string): Provider[] {
    const fromProfiles = this.profiles.list(account).filter((p) => p.enabled).map((p) => this.profileProvider(p));
    return [this.local, ...this.configured, ...fromProfiles];
  }

  provider(account: string, name: string): Provider | null {
    return this.providersFor(account).find((p) => p.info.name === name) ?? null;
  }

  async resolve(account: string, modelId: string, kind: ModelKind): Promise<ResolvedModel> {
    const named = modelId === 'default' ? (kind === 'chat' ? this.defaults.chat() : this.defaults.embedding()) : modelId;
    // One alias hop: an alias names a real model id, never another alias.
    const id = this.aliases[named] ?? named;
    const slash = id.indexOf('/');
    if (slash > 0) {
      const provider = this.provider(account, id.slice(0, slash));
      if (provider) {
        const model = id.slice(slash + 1);
        if (await provider.findModel(model)) {
          await provider.check?.(model);
          return { provider, model, id };
        }
        throw unknownModel(modelId);
      }
    }
    // A bare name is a local model.
    if (await this.local.findModel(id)) {
      await this.local.check(id);
      return { provider: this.local, model: id, id: `${LOCAL_PROVIDER}/${id}` };
    }
    throw unknownModel(modelId);
  }

  private profileProvider(profile: StoredProfile): RemoteProvider {
    const cached = this.profileProviders.get(profile.profile_id);
    if (cached && cached.version === profile.updated_at) return cached.provider;
    const provider = new RemoteProvider({
      info: { name: `endpoint:${profile.name}`, kind: 'endpoint', label: `${profile.name} (${profile.kind} endpoint profile)`, catalog: profile.models.length ? 'allowlist' : 'live_catalog', base_url: profile.base_url, profile_id: profile.profile_id },
      baseUrl: profile.base_url,
      apiKey: this.profiles.apiKey(profile),
      models: profile.models,
      timeoutMs: 120_000,
      catalogTtlMs: this.catalogTtlMs,
    });
    this.profileProviders.set(profile.profile_id, { version: profile.updated_at, provider });
    return provider;
  }
}

function unknownModel(id: string) {
  return notFound(`The model '${echoId(id)}' does not exist.`, { code: 'model_not_found', field: 'body.model' });
}
