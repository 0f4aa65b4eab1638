/**
 * Who the page speaks as and how the hub is: seat id, operator flag, the protocol badge (a
 * different protocol warns, never refuses), the paused badge, the live socket state, sign out.
 */
import { button, h, replaceChildren } from './dom.js';
import { PINNED_PROTOCOL } from './hub-types.js';
import type { LiveState } from './live-socket.js';

export interface IdentityState {
  seat: string | null;
  operator: boolean;
  mission: string;
  protocol: string | null;
  hubVersion: string | null;
  paused: boolean;
  live: LiveState;
}

export class IdentityBar {
  readonly element: HTMLElement;
  private readonly content: HTMLElement;

  constructor(private readonly onSignOut: () => void) {
    this.content = h('div', { class: 'tp-identity__content' });
    this.element = h('header', { testid: 'identity', class: 'tp-identity' }, h('span', { class: 'tp-identity__brand' }, 'Team hub'), this.content);
  }

  render(state: IdentityState): void {
    const mismatch = state.protocol !== null && state.protocol !== PINNED_PROTOCOL;
    replaceChildren(
      this.content,
      state.seat ? h('span', { testid: 'identity-seat', class: 'tp-identity__seat', attrs: { title: state.mission || null } }, state.seat) : null,
      state.seat && state.operator ? h('span', { testid: 'operator-badge', class: 'tp-badge tp-badge--accent' }, 'operator') : null,
      mismatch ? h('span', { testid: 'protocol-badge', class: 'tp-badge tp-badge--warn', attrs: { title: 'The hub speaks another protocol version; the page keeps working.' } },
        `protocol ${state.protocol} ≠ ${PINNED_PROTOCOL}`) : null,
      state.paused ? h('span', { testid: 'paused-badge', class: 'tp-badge tp-badge--warn' }, 'hub paused') : null,
      state.hubVersion ? h('span', { testid: 'hub-version', class: 'tp-identity__version' }, `hub ${state.hubVersion}`) : null,
      state.seat ? h('span', { testid: 'live-status', class: `tp-live tp-live--${state.live}`, data: { state: state.live } }, `live: ${state.live}`) : null,
      state.seat ? button('Sign out', 'sign-out', () => this.onSignOut(), { class: 'tp-button tp-button--quiet' }) : null,
    );
  }
}
