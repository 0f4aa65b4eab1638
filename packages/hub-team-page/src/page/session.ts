/**
 * Signing in and out. At start the page reads the hub's health (no key needed) so protocol and
 * pause show before sign-in, then asks who the client speaks as: a host client that already holds
 * a key (or sits behind a key-holding proxy) enters without the form. Entering starts the socket
 * and polling, loads channels and presence, then applies the host's focus or selects the default
 * channel. Signing out forgets the key and everything read with it.
 */
import type { Meta } from '../hub-types.js';
import type { PageContext } from './context.js';
import type { HostFocus } from './focus.js';
import type { ChannelNavigation } from './navigation.js';
import type { PagePolling } from './polling.js';

export class Session {
  constructor(
    private readonly ctx: PageContext,
    private readonly nav: ChannelNavigation,
    private readonly focus: HostFocus,
    private readonly polling: PagePolling,
  ) {}

  async start(): Promise<void> {
    const { ctx } = this;
    ctx.views.identity.render(ctx.state.identity);
    await this.polling.readHealth(true);
    const meta = await ctx.calls.silently(() => ctx.hub.meta());
    if (ctx.state.destroyed || ctx.state.entered) return;
    if (meta?.seat_key_present && meta.seat) await this.enter(meta);
    else ctx.views.signIn.focus();
  }

  async signIn(key: string): Promise<void> {
    const { ctx } = this;
    ctx.calls.refusals.clear();
    ctx.hub.set_bearer_token(key);
    const meta = await ctx.calls.attempt('signing in', async () => {
      const summary = await ctx.hub.meta();
      // meta() reads a 401/403 as "no usable key"; whoami() brings back the hub's own sentence.
      if (!summary.seat_key_present || !summary.seat) await ctx.hub.whoami();
      return summary;
    });
    if (!meta || !meta.seat_key_present || !meta.seat) {
      ctx.hub.set_bearer_token(null);
      if (meta) ctx.calls.refusals.show({ detail: 'the hub served no identity for this seat key' }, 'signing in');
      return;
    }
    await this.enter(meta);
  }

  signOut(): void {
    const { ctx } = this;
    const { state, views } = ctx;
    state.entered = false;
    ctx.live.stop();
    this.polling.stop();
    this.nav.leaveChannel();
    ctx.hub.set_bearer_token(null);
    state.rows = [];
    state.selected = null;
    state.history = null;
    state.unseen.clear();
    ctx.calls.refusals.clear();
    ctx.render.identity({ seat: null, operator: false, mission: '' });
    views.setSignedIn(false);
    this.nav.setInfoOpen(false);
    ctx.render.rail();
    views.people.render([], null);
    ctx.render.thread();
    ctx.render.channel();
    views.setChannel(null);
    views.signIn.focus();
  }

  private async enter(meta: Meta): Promise<void> {
    const { ctx } = this;
    const { state } = ctx;
    if (state.entered || state.destroyed) return;
    state.entered = true;
    ctx.render.identity({ seat: meta.seat, operator: meta.operator === true, mission: meta.mission ?? '' });
    ctx.views.setSignedIn(true);
    ctx.live.start();
    this.polling.start();
    await this.polling.readHealth(false);
    await this.nav.loadChannels();
    void this.nav.loadPresence();
    if (this.focus.waiting) {
      await this.focus.apply();
    } else {
      const preferred = ctx.props.defaultChannel ?? 'commons';
      const first = state.rows.find((r) => r.name === preferred && r.member) ?? state.rows.find((r) => r.member);
      if (first && !state.selected) await this.nav.select(first.name);
    }
    void this.polling.badgePass();
  }
}
