/**
 * Reserved active-run slots (seed 000 §4.10 `/admin/runtime-reservations`): an admin reserves for
 * one account more root runs running or waiting at once than `limits.maxActiveRunsPerAccount`
 * allows every account (a service account, a team's shared automation account). Kept in LMDB so
 * a separate `keel runner` and a restart read the same; `ActiveRunCap` honours it at each start.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';

export interface RunReservation {
  account: string;
  /** Root runs the account may have running or waiting at once (instead of the default cap, when higher). */
  slots: number;
  note: string;
  reserved_at: string;
  reserved_by: string;
}

export class RunReservations {
  private readonly db: Database<RunReservation, string>;

  constructor(storage: PluginStorage) {
    this.db = storage.openDB<RunReservation, string>('runtime-reservations');
  }

  get(account: string): RunReservation | undefined {
    return this.db.get(account);
  }

  /** The slots reserved for `account`, 0 when none. */
  slotsOf(account: string): number {
    return this.db.get(account)?.slots ?? 0;
  }

  list(): RunReservation[] {
    return [...this.db.getRange()].map((e) => e.value);
  }

  async reserve(account: string, slots: number, note: string, by: string): Promise<RunReservation> {
    const reservation = { account, slots, note, reserved_at: new Date().toISOString(), reserved_by: by };
    await this.db.put(account, reservation);
    return reservation;
  }

  /** Removes the reservation; answers whether there was one. */
  async release(account: string): Promise<boolean> {
    if (this.db.get(account) === undefined) return false;
    await this.db.remove(account);
    return true;
  }
}
