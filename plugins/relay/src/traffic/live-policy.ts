/**
 * The retention policy in force (reference §5.4): the saved `.retention.json` when it exists, else
 * the config's. Read again only when the saved file changed (its signature), so every batch can
 * ask cheaply; a changed policy calls for a cleanup pass.
 */
import { PolicyStorageError, RetentionPolicyStore, type PolicySource, type RetentionPolicy } from './retention-policy.js';

export class LivePolicy {
  policy: RetentionPolicy;
  source: PolicySource = 'config';
  readonly store: RetentionPolicyStore;
  /** The saved file's version last read (`undefined`: not read yet). */
  private signature: string | null | undefined;

  constructor(
    logsDir: string,
    configured: RetentionPolicy,
    /** A policy that cannot be read (the previous one stays). */
    private readonly onError: (message: string) => void,
    /** The policy changed after the first read: a cleanup pass is due. */
    private readonly onChange: () => void,
  ) {
    this.policy = configured;
    this.store = new RetentionPolicyStore(logsDir, { ...configured });
  }

  /**
   * Reads the saved policy again when its file changed (another process, a PUT). With `strict`, a
   * policy that cannot be read throws `PolicyStorageError`; otherwise the previous one stays and
   * `onError` says why.
   */
  async reload(strict: boolean): Promise<void> {
    try {
      const signature = await this.store.signature();
      if (signature === this.signature && !strict) return;
      const loaded = await this.store.load();
      if (loaded.signature === this.signature) return;
      this.adopt(loaded.policy, loaded.source, loaded.signature);
    } catch (err) {
      if (!(err instanceof PolicyStorageError)) throw err;
      this.onError(err.message);
      if (strict) throw err;
      // Not read again until the file changes: one error, not one per batch.
      this.signature = await this.store.signature().catch(() => this.signature);
    }
  }

  /** Saves `partial` over the effective policy (under the store's lock) and adopts it. */
  async update(partial: Partial<RetentionPolicy>): Promise<void> {
    const saved = await this.store.update(partial);
    this.adopt(saved.policy, saved.source, saved.signature);
  }

  private adopt(policy: RetentionPolicy, source: PolicySource, signature: string | null): void {
    const first = this.signature === undefined;
    this.policy = policy;
    this.source = source;
    this.signature = signature;
    if (!first) this.onChange();
  }
}
