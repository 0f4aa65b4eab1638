/**
 * What the page knows between renders: who it speaks as and how the hub is, the channel rows, the
 * selection with its loaded history, and the per-channel unseen counts. One object the page's
 * modules share and change; whoever changes it renders what it changed (render.ts).
 */
import type { ChannelHistory } from '../channel-history.js';
import type { ChannelRow } from '../hub-types.js';
import type { IdentityState } from '../identity-bar.js';

export interface PageState {
  identity: IdentityState;
  rows: ChannelRow[];
  selected: string | null;
  history: ChannelHistory | null;
  /** The peer of a direct message not created yet (selected, empty; its first message creates it). */
  pendingDm: string | null;
  /** Root whose Retract thread awaits confirmation. */
  armed: string | null;
  readonly unseen: Map<string, number>;
  /** Signed in (or signing in): the probe at start and the sign-in form never both enter. */
  entered: boolean;
  destroyed: boolean;
}

export function initialState(): PageState {
  return {
    identity: { seat: null, operator: false, mission: '', protocol: null, hubVersion: null, paused: false, live: 'off' },
    rows: [],
    selected: null,
    history: null,
    pendingDm: null,
    armed: null,
    unseen: new Map(),
    entered: false,
    destroyed: false,
  };
}

/** The served row of a channel, when the seat's channel list has it. */
export function rowOf(state: PageState, name: string): ChannelRow | undefined {
  return state.rows.find((r) => r.name === name);
}

/** The served row of the selected channel (none for a pending direct message or no selection). */
export function selectedRow(state: PageState): ChannelRow | undefined {
  return state.selected ? rowOf(state, state.selected) : undefined;
}

export function hasRow(state: PageState, name: string): boolean {
  return state.rows.some((r) => r.name === name);
}
