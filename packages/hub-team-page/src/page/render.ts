/**
 * Renders page state into the views: the identity bar, the channel rail, the channel bar, the
 * thread and what the composer allows. Each part re-renders whole from state, so any change is
 * followed by the renders of what it touched.
 */
import { dmPeer, DM_PREFIX } from '../channel-rail.js';
import type { ChannelRow } from '../hub-types.js';
import type { IdentityState } from '../identity-bar.js';
import type { TeamPageProps } from '../props.js';
import { hasRow, selectedRow, type PageState } from './state.js';
import type { PageViews } from './views.js';

export class PageRender {
  constructor(private readonly props: TeamPageProps, private readonly state: PageState, private readonly views: PageViews) {}

  /** Changes who the page speaks as or how the hub is, and shows it (and what the composer allows). */
  identity(patch: Partial<IdentityState>): void {
    this.state.identity = { ...this.state.identity, ...patch };
    this.views.identity.render(this.state.identity);
    this.composer();
  }

  /** Everything a change of the selected channel touches. */
  selection(): void {
    this.rail();
    this.channel();
    this.thread();
    this.composer();
  }

  rail(): void {
    const { state } = this;
    const rows = state.pendingDm && state.selected && !hasRow(state, state.selected)
      ? [...state.rows, { name: state.selected, private: true, member: true, member_count: 2, last_seq: 0, last_at: null } as ChannelRow]
      : state.rows;
    this.views.rail.render(rows, state.selected, state.identity.seat, state.unseen);
  }

  channel(): void {
    const { state, props } = this;
    const name = state.selected;
    const row = selectedRow(state);
    const dm = name?.startsWith(DM_PREFIX) === true;
    this.views.bar.render({
      channel: name,
      title: name ? (dm ? `@${dmPeer(name, state.identity.seat)}` : name) : '',
      member: state.pendingDm !== null || row?.member !== false,
      private: row?.private === true,
      dm,
      pendingDm: state.pendingDm !== null,
      infoOpen: this.views.info.isOpen,
      advisor: Boolean(props.advisor),
      board: Boolean(props.on_open_board) && state.identity.seat !== null,
    });
  }

  thread(): void {
    const { state, props } = this;
    const row = selectedRow(state);
    const placeholder = state.pendingDm ? `No messages with ${state.pendingDm} yet. Your first message creates this direct channel.`
      : row && !row.member ? `You are not a member of #${row.name}. Join it to read and post.`
        : null;
    this.views.thread.render(state.selected, state.history?.list() ?? [], {
      seat: state.identity.seat,
      operator: state.identity.operator,
      features: { speak: Boolean(props.on_speak_message), board: Boolean(props.on_open_board) },
      speaking: this.views.speech.speaking,
      armed: state.armed,
      placeholder,
    });
  }

  composer(): void {
    const { state } = this;
    const { composer } = this.views;
    const row = selectedRow(state);
    composer.setMode(state.pendingDm ? 'new-dm' : 'channel');
    if (state.identity.paused) composer.setEnabled(false, 'The hub is paused by the operator; posting resumes when it is lifted.');
    else if (!state.selected) composer.setEnabled(false, 'Select a channel first.');
    else if (!state.pendingDm && row && !row.member) composer.setEnabled(false, `Join #${row.name} to post.`);
    else composer.setEnabled(true);
  }
}
