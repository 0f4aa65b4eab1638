/**
 * What models each provider lists, kept so a pure node (`provider_models`) can read it synchronously:
 * pure nodes are evaluated on every read, inside a step, and cannot wait for a provider's catalog.
 * The listing is refreshed in the background: at start (the providers that need no network: local
 * models and allow-listed endpoints), when a read finds it missing or older than `refreshMs`, and
 * every `refreshMs` for the accounts read since the last round (a live catalog is never polled for
 * nobody). A provider not listed yet reads as unknown (no models).
 */
import type { InferenceService } from '@keel/plugin-inference';
import type { Logger } from '@keel/plugin-sdk';

export interface ListedModel {
  /** The provider's own model name (no provider prefix). */
  name: string;
  kinds: string[];
}

interface Entry {
  at: number;
  models: ListedModel[];
}

export class ModelListing {
  /** By account, then provider name (an account's endpoint profiles are its own). */
  private readonly lists = new Map<string, Map<string, Entry>>();
  private readonly refreshing = new Set<string>();
  /** Accounts read since the last timed round. */
  private readonly readSince = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly inference: InferenceService, private readonly refreshMs: number, private readonly log: Logger) {}

  /** The models `provider` listed when last asked for `account`, or null when it was never listed (a refresh is started). */
  models(account: string, provider: string): ListedModel[] | null {
    this.readSince.add(account);
    // Local models and configured endpoints are the same for every account: the shared listing ('') serves until the account's own is in.
    const entry = this.lists.get(account)?.get(provider) ?? (provider.startsWith('endpoint:') ? undefined : this.lists.get('')?.get(provider));
    if (!entry || Date.now() - entry.at > this.refreshMs) this.refresh(account);
    return entry ? entry.models : null;
  }

  /** Lists every provider the account sees, in the background (one refresh per account at a time). */
  refresh(account: string): void {
    if (this.refreshing.has(account)) return;
    this.refreshing.add(account);
    void this.listAll(account).finally(() => this.refreshing.delete(account));
  }

  /** Lists now and waits for it (a test or a start that wants the listing ready). */
  async listAll(account: string, withoutNetwork = false): Promise<void> {
    const providers = this.inference.providers(account).filter((p) => !withoutNetwork || p.info.catalog !== 'live_catalog');
    const fresh = new Map<string, Entry>();
    await Promise.all(providers.map(async (provider) => {
      try {
        const models = await provider.listModels();
        fresh.set(provider.info.name, { at: Date.now(), models: models.map((m) => ({ name: m.name, kinds: [...m.kinds] })) });
      } catch (err) {
        // A catalog that does not answer keeps its last listing.
        this.log.warn('provider catalog unavailable for provider_models', { provider: provider.info.name, error: (err as Error).message });
      }
    }));
    const kept = this.lists.get(account) ?? new Map<string, Entry>();
    for (const [name, entry] of fresh) kept.set(name, entry);
    this.lists.set(account, kept);
  }

  /** Lists the providers that need no network now, then refreshes the accounts read, every `refreshMs` (the timer does not keep the process alive). */
  start(): void {
    void this.listAll('', true).catch(() => undefined);
    this.timer = setInterval(() => {
      for (const account of this.readSince) this.refresh(account);
      this.readSince.clear();
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
