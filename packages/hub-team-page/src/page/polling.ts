/**
 * What keeps the page current besides the live socket: the REST poll (the selected channel every
 * tick; channels, a pending DM, presence, hub health and badges on the slow pass), the tab badges
 * (inbox rows, owed to answer and to consume) and the hub's health in the identity bar.
 */
import { Poller } from '../poller.js';
import type { PageContext } from './context.js';
import type { ChannelNavigation } from './navigation.js';

/** A burst of envelopes asks for one badge pass, this long after the last. */
const BADGE_DEBOUNCE_MS = 800;

export class PagePolling {
  private readonly poller: Poller;
  private badgeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly ctx: PageContext, private readonly nav: ChannelNavigation) {
    this.poller = new Poller((slow) => this.tick(slow), ctx.props.pollMs);
  }

  start(): void {
    this.poller.start();
  }

  stop(): void {
    this.poller.stop();
  }

  /** Stops polling and a scheduled badge pass (unmount). */
  dispose(): void {
    this.poller.stop();
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
  }

  scheduleBadges(): void {
    if (this.badgeTimer) clearTimeout(this.badgeTimer);
    this.badgeTimer = setTimeout(() => void this.badgePass(), BADGE_DEBOUNCE_MS);
  }

  async badgePass(): Promise<void> {
    const { ctx } = this;
    if (!ctx.state.identity.seat) return;
    const inboxCount = await ctx.calls.quietly('inbox', () => ctx.hub.inbox().then((rows) => rows.length));
    ctx.views.tabs.setCount('inbox', inboxCount ?? null);
    const owed = await ctx.calls.quietly('owed', () => ctx.hub.owed());
    if (owed) ctx.views.tabs.setCount('owed', (owed.counts?.to_answer ?? 0) + (owed.counts?.to_consume ?? 0));
  }

  /** Reads the hub's protocol, version and pause; a refusal shows only when asked (the first read, before sign-in). */
  async readHealth(showRefusal: boolean): Promise<void> {
    const { ctx } = this;
    const read = () => ctx.hub.healthz();
    const health = showRefusal ? await ctx.calls.attempt('checking the hub', read) : await ctx.calls.quietly('health', read);
    if (!health) return;
    ctx.render.identity({ protocol: typeof health.protocol === 'string' ? health.protocol : null, hubVersion: health.version ?? null, paused: health.paused === true });
  }

  private async tick(slow: boolean): Promise<void> {
    await this.nav.refreshSelected();
    if (!slow) return;
    await this.nav.loadChannels();
    await this.nav.adoptCreatedDm();
    await this.nav.loadPresence();
    await this.readHealth(false);
    await this.badgePass();
  }
}
