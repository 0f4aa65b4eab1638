/**
 * What models each provider lists, kept so a pure node (`provider_models`) can read it synchronously:
 * pure nodes are evaluated on every read, inside a step, and cannot wait for a provider's catalog.
 * The listing is refreshed in the background: at start, every `refreshMs`, when a run of an account
 * starts, and when a read finds it older than `refreshMs`. A provider not listed yet reads as unknown.
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
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly inference: InferenceService, private readonly refreshMs: number, private readonly log: Logger) {}

  /** The models `provider` listed when last asked for `account`, or null when it was never listed (a refresh is started). */
  models(account: string, provider: string): ListedModel[] | null {
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
  async listAll(account: string): Promise<void> {
    const providers = this.inference.providers(account);
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

  /** Refreshes every account seen so far, every `refreshMs` (the timer does not keep the process alive). */
  start(): void {
    this.refresh('');
    this.timer = setInterval(() => {
      for (const account of this.lists.keys()) this.refresh(account);
    }, this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
