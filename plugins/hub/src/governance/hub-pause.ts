/**
 * Pausing the hub: while an operator holds the hub paused, non-operator writes (posts, files and
 * store writes, uploads, joins, channel creation, invites, archive, leave, onboarding) answer 423;
 * reads, acknowledgements and direct messages with an operator stay open. The state is durable, so a
 * restart does not silently lift a pause.
 */
import { HttpError } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, ChannelRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';

export type HubState = { state: 'open' } | { state: 'paused'; since: number; reason: string; by: string };

const KEY = 'hub';

export class HubPause {
  private readonly store: Database<HubState, string>;

  constructor(private readonly db: HubDb) {
    this.store = db.openDB<HubState, string>('pause');
  }

  state(): HubState {
    return this.store.get(KEY) ?? { state: 'open' };
  }

  paused(): boolean {
    return this.state().state === 'paused';
  }

  async pause(by: string, reason: string): Promise<HubState> {
    const current = this.state();
    if (current.state === 'paused') return current;
    const state: HubState = { state: 'paused', since: nowSeconds(), reason, by };
    await this.store.put(KEY, state);
    return state;
  }

  async resume(): Promise<HubState> {
    await this.store.remove(KEY);
    return { state: 'open' };
  }

  /** Refuses a write by `seat` (or by an unauthenticated newcomer) while paused; operators pass. */
  requireOpen(seat: AgentRecord | null): void {
    const state = this.state();
    if (state.state !== 'paused' || seat?.operator) return;
    const since = new Date(state.since * 1000).toISOString().slice(11, 16);
    const reason = state.reason ? ` — ${state.reason}` : '';
    throw new HttpError(423, `hub paused by the operator since ${since} UTC${reason}. Reads, acknowledgements and direct messages with an operator stay open; writes resume when an operator lifts the pause.`);
  }

  /** The post gate: a paused hub still carries direct messages with an operator. */
  gate(channel: ChannelRecord, sender: AgentRecord): void {
    if (channel.is_dm && [...this.db.memberIds(channel.name)].some((id) => id !== sender.id && this.db.agents.get(id)?.operator)) return;
    this.requireOpen(sender);
  }
}
