/**
 * `limits.maxActiveRunsPerAccount`: how many root runs one non-admin account may have running or
 * waiting at once. Each run costs the runner's time and memory, so one account starting thousands
 * would crowd out every other; past the cap a start answers 429 until one of them ends.
 */
import { tooManyRequests, type Principal } from '@keel/plugin-sdk';
import { KeyedLock } from '../runtime/keyed-lock.js';
import { isListenerRun } from '../runtime/child-run.js';
import type { RunStore } from '../runtime/run-store.js';

export class ActiveRunCap {
  /** Starts of one account are counted and created one at a time, so two at once cannot both take the last place. */
  private readonly lock = new KeyedLock();

  /**
   * `maxListeners` (`limits.maxListenerRunsPerAccount`): event listener runs (RN §7.2) outlive the
   * root that started them, so the root cap alone would not bound them.
   */
  constructor(
    private readonly runs: RunStore,
    private readonly max: number,
    private readonly isAdmin: (p: Principal) => boolean,
    private readonly maxListeners: number = Number.MAX_SAFE_INTEGER,
    /** Slots an admin reserved for an account (`/admin/runtime-reservations`); a reservation above `max` raises that account's cap. */
    private readonly reservedSlots: (account: string) => number = () => 0,
  ) {}

  /** The most root runs `account` may have running or waiting at once, and whether a reservation sets it. */
  capOf(account: string): { max: number; reserved: boolean } {
    const reserved = this.reservedSlots(account);
    return reserved > this.max ? { max: reserved, reserved: true } : { max: this.max, reserved: false };
  }

  /**
   * Runs `create` (which makes a root run of the principal's account) unless the account is at its
   * cap (429), or the `listeners` event listener runs the new run will start would take it past
   * its listener cap (counted against the listeners live now).
   */
  async admit<T>(principal: Principal, create: () => Promise<T>, listeners = 0): Promise<T> {
    if (this.isAdmin(principal)) return create();
    return this.lock.run(principal.account, async () => {
      this.refuseIfFull(principal, listeners);
      return create();
    });
  }

  /**
   * Throws the 429 `admit` would throw now. A start calls it before its costly preparation (history
   * replay, skills), so a refused start does not pay for them; `admit` checks again under the lock.
   */
  refuseIfFull(principal: Principal, listeners = 0): void {
    if (this.isAdmin(principal)) return;
    // The active index: a start never reads (decodes) every run the account ever made.
    const live = this.runs.activeOf(principal.account);
    const active = live.filter((r) => r.parent_run_id === null).length;
    const cap = this.capOf(principal.account);
    if (active >= cap.max) {
      const why = cap.reserved
        ? `the ${cap.max} slots an admin reserved for it (/admin/runtime-reservations)`
        : 'the most one account may have at once (setting `limits.maxActiveRunsPerAccount` of the gateway-runs plugin)';
      throw tooManyRequests(`Account '${principal.account}' already has ${active} runs running or waiting, ${why}; cancel one or wait until one ends.`, { code: 'too_many_active_runs' });
    }
    const listening = live.filter(isListenerRun).length;
    if (listeners > 0 && listening + listeners > this.maxListeners) {
      throw tooManyRequests(`Account '${principal.account}' already has ${listening} event listener runs waiting and this flow would start ${listeners} more, past the ${this.maxListeners} one account may have (setting \`limits.maxListenerRunsPerAccount\` of the gateway-runs plugin); listeners wait until their root run's tree is cancelled, so cancel the runs whose listeners are no longer needed.`, { code: 'too_many_listener_runs' });
    }
  }
}
