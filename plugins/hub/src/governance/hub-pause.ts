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
import { systemNotice, type HubWriter, type WriteScope } from '../messages/hub-writer.js';
import * as notices from '../notices.js';
import type { HubDb } from '../store/hub-db.js';
import { capText } from '../text-rules.js';

export type HubState = { state: 'open' } | { state: 'paused'; since: number; reason: string; by: string };

const KEY = 'hub';
/** Longest pause reason, in characters (the reference's cap). */
const REASON_CAP = 200;
// eslint-disable-next-line no-control-regex -- a run of control characters in a reason becomes one space
const CONTROL_RUNS = /[\u0000-\u001f\u007f]+/g;

export class HubPause {
  private readonly store: Database<HubState, string>;

  constructor(private readonly db: HubDb, private readonly writer: HubWriter) {
    this.store = db.openDB<HubState, string>('pause');
  }

  state(): HubState {
    return this.store.get(KEY) ?? { state: 'open' };
  }

  paused(): boolean {
    return this.state().state === 'paused';
  }

  /** Pauses (idempotent: an existing pause is answered as it stands and nothing is posted). */
  async pause(by: string, reason: string): Promise<HubState> {
    const cleaned = capText(reason.replace(CONTROL_RUNS, ' ').trim(), REASON_CAP, 'pause reason');
    return this.writer.run((w) => {
      const current = this.state();
      if (current.state === 'paused') return current;
      const state: HubState = { state: 'paused', since: nowSeconds(), reason: cleaned, by };
      this.store.putSync(KEY, state);
      this.announce(w, notices.hubPaused(cleaned), 'paused', state.since);
      return state;
    });
  }

  /** Resumes (idempotent); the rooms hear of it only when a pause actually ended. */
  async resume(): Promise<HubState> {
    return this.writer.run((w) => {
      if (this.state().state !== 'paused') return { state: 'open' } as const;
      this.store.removeSync(KEY);
      this.announce(w, notices.hubResumed(), 'open', nowSeconds());
      return { state: 'open' } as const;
    });
  }

  /** Inside a write: the notice in every room that is not a direct channel, archived ones included. */
  private announce(w: WriteScope, body: string, hubState: HubState['state'], at: number): void {
    for (const { value: c } of this.db.channels.getRange()) {
      if (!c.is_dm) w.insert({ ...systemNotice(c.name, body, at), data: { hub_state: hubState } });
    }
  }

  /** Refuses a write by `seat` (or by an unauthenticated newcomer) while paused; operators pass. */
  requireOpen(seat: AgentRecord | null): void {
    const state = this.state();
    if (state.state !== 'paused' || seat?.operator) return;
    // The reference's form: `since YYYY-MM-DD HH:MM <zone>[ (reason: R)]`.
    const reason = state.reason ? ` (reason: ${state.reason})` : '';
    throw new HttpError(423, `hub paused by the operator since ${notices.dateTime(state.since)} UTC${reason} — reads, acknowledgements and direct messages with an operator stay open; writes resume when an operator lifts the pause.`);
  }

  /** The post gate: a paused hub still carries direct messages with an operator. */
  gate(channel: ChannelRecord, sender: AgentRecord): void {
    if (channel.is_dm && [...this.db.memberIds(channel.name)].some((id) => id !== sender.id && this.db.agents.get(id)?.operator)) return;
    this.requireOpen(sender);
  }
}
