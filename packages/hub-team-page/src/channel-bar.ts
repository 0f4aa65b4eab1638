/**
 * The bar above the thread: the selected channel's name and the controls that act on the channel
 * as a whole — Join (a public room the seat has not joined), Info (the channel info drawer),
 * Summarise (only with a host advisor) and Board (only with host board navigation).
 */
import { button, h, replaceChildren } from './dom.js';

export interface ChannelBarState {
  channel: string | null;
  /** What the heading shows: the room name, or `@peer` for a direct message. */
  title: string;
  member: boolean;
  private: boolean;
  dm: boolean;
  /** A direct message not created yet (the first message creates it). */
  pendingDm: boolean;
  infoOpen: boolean;
  advisor: boolean;
  board: boolean;
}

export interface ChannelBarActions {
  join(): void;
  toggleInfo(): void;
  summarise(): void;
  openBoard(): void;
}

export class ChannelBar {
  readonly element: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly controls: HTMLElement;

  constructor(private readonly actions: ChannelBarActions) {
    this.heading = h('h2', { testid: 'thread-channel', class: 'tp-channel-bar__name' }, 'No channel selected');
    this.detail = h('span', { testid: 'channel-detail', class: 'tp-channel-bar__detail' });
    this.controls = h('div', { class: 'tp-channel-bar__controls' });
    this.element = h('div', { testid: 'channel-bar', class: 'tp-channel-bar' }, this.heading, this.detail, this.controls);
  }

  render(state: ChannelBarState): void {
    this.heading.textContent = state.channel ? state.title : 'No channel selected';
    this.element.dataset.channel = state.channel ?? '';
    this.detail.textContent = !state.channel ? ''
      : state.pendingDm ? 'new direct message'
        : state.dm ? 'direct message'
          : `${state.private ? 'private' : 'public'}${state.member ? '' : ' · not joined'}`;
    const live = state.channel !== null && !state.pendingDm;
    replaceChildren(this.controls,
      live && !state.member && !state.dm ? button(`Join #${state.channel}`, 'join-channel', () => this.actions.join(), { class: 'tp-button tp-button--primary tp-button--small' }) : null,
      live && state.member ? button('Info', 'channel-info-toggle', () => this.actions.toggleInfo(), {
        class: `tp-button tp-button--small${state.infoOpen ? ' tp-button--active' : ''}`,
        attrs: { 'aria-expanded': state.infoOpen ? 'true' : 'false' },
      }) : null,
      live && state.member && state.advisor ? button('Summarise', 'advisor-summarise', () => this.actions.summarise(), { class: 'tp-button tp-button--small', attrs: { title: 'Ask the assistant to summarise the visible thread (nothing is posted)' } }) : null,
      state.board ? button('Board', 'board-open', () => this.actions.openBoard(), { class: 'tp-button tp-button--small' }) : null,
    );
  }
}
