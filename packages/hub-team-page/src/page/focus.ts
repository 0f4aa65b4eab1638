/**
 * The host's focus prop: select the focused channel, scroll to and highlight the focused message
 * (reading it when it is outside the loaded window), then tell the host what was found. A focus is
 * applied once signed in; the same focus object is never applied twice.
 */
import type { FocusTarget } from '../props.js';
import type { PageContext } from './context.js';
import type { ChannelNavigation } from './navigation.js';
import { hasRow } from './state.js';

export class HostFocus {
  private pending: FocusTarget | null;
  private last: FocusTarget | null = null;

  constructor(private readonly ctx: PageContext, private readonly nav: ChannelNavigation) {
    this.pending = ctx.props.focus ?? null;
  }

  /** A focus waits to be applied (the mount-time prop, or an update before sign-in). */
  get waiting(): boolean {
    return this.pending !== null;
  }

  request(focus: FocusTarget | null): void {
    if (!focus || focus === this.last) return;
    this.pending = focus;
    if (this.ctx.state.identity.seat) void this.apply();
  }

  /** Selects the focused channel, scrolls to and highlights the focused message, then tells the host. */
  async apply(): Promise<void> {
    const { ctx } = this;
    const focus = this.pending;
    if (!focus || !ctx.state.identity.seat) return;
    this.pending = null;
    this.last = focus;
    let channel = false;
    let message = false;
    if (typeof focus.channel === 'string' && focus.channel !== '') {
      if (!hasRow(ctx.state, focus.channel)) await this.nav.loadChannels();
      channel = await this.nav.select(focus.channel);
      if (channel && focus.message_id) message = await this.focusMessage(focus.channel, focus.message_id);
    }
    ctx.props.on_focus_consumed?.(focus, { channel, message });
  }

  private async focusMessage(channel: string, id: string): Promise<boolean> {
    const { ctx } = this;
    const history = ctx.state.history;
    if (!history || history.channel !== channel) return false;
    let seq = history.byId(id)?.seq;
    if (seq === undefined) {
      // Outside the loaded window: the host asked for this message, so reading it (a recorded read) is the person's act.
      const read = await ctx.calls.attempt(`reading message ${id}`, () => ctx.hub.read_message(channel, id));
      if (!read || ctx.state.history !== history) return false;
      const row = await ctx.calls.quietly(`reading ${channel} #${read.seq}`, () => history.readOne(read.seq));
      if (!row) history.fold(read);
      seq = read.seq;
      ctx.render.thread();
    }
    return ctx.views.thread.focus(seq);
  }
}
