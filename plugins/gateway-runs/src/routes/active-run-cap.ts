/**
 * `limits.maxActiveRunsPerAccount`: how many root runs one non-admin account may have running or
 * waiting at once. Each run costs the runner's time and memory, so one account starting thousands
 * would crowd out every other; past the cap a start answers 429 until one of them ends.
 */
import { tooManyRequests, type Principal } from '@keel/plugin-sdk';
import { KeyedLock } from '../runtime/keyed-lock.js';
import type { RunStore } from '../runtime/run-store.js';

export class ActiveRunCap {
  /** Starts of one account are counted and created one at a time, so two at once cannot both take the last place. */
  private readonly lock = new KeyedLock();

  constructor(private readonly runs: RunStore, private readonly max: number, private readonly isAdmin: (p: Principal) => boolean) {}

  /** Runs `create` (which makes a root run of the principal's account) unless the account is at its cap (429). */
  async admit<T>(principal: Principal, create: () => Promise<T>): Promise<T> {
    if (this.isAdmin(principal)) return create();
    return this.lock.run(principal.account, async () => {
      const active = this.runs.listByAccount(principal.account).filter((r) => r.parent_run_id === null && (r.status === 'running' || r.status === 'waiting')).length;
      if (active >= this.max) {
        throw tooManyRequests(`Account '${principal.account}' already has ${active} runs running or waiting, the most one account may have at once (setting \`limits.maxActiveRunsPerAccount\` of the gateway-runs plugin); cancel one or wait until one ends.`, { code: 'too_many_active_runs' });
      }
      return create();
    });
  }
}
