/**
 * Channels and where the page looks: the seat's channel list and presence, selecting a channel
 * (and loading its history), opening a message or a file, starting a direct message, joining and
 * creating channels, the info drawer, and what showing a tab loads.
 */
import { ChannelHistory } from '../channel-history.js';
import { dmChannelName } from '../channel-rail.js';
import type { PageContext } from './context.js';
import { hasRow, rowOf } from './state.js';
import type { TabKey } from './views.js';

export class ChannelNavigation {
  constructor(private readonly ctx: PageContext) {}

  async loadChannels(): Promise<void> {
    const { ctx } = this;
    const rows = await ctx.calls.quietly('channels', () => ctx.hub.channels());
    if (!rows) return;
    ctx.state.rows = rows;
    ctx.render.rail();
    ctx.render.channel();
    ctx.render.composer();
    ctx.live.setChannels(rows.filter((r) => r.member).map((r) => r.name));
  }

  async loadPresence(): Promise<void> {
    const { ctx } = this;
    const rows = await ctx.calls.quietly('presence', () => ctx.hub.presence());
    if (rows && ctx.state.identity.seat) ctx.views.people.render(rows, ctx.state.identity.seat);
  }

  /** What leaving the selected channel stops: speech, the advisor, attachment URLs, an armed retraction, a pending DM. */
  leaveChannel(): void {
    const { views, state } = this.ctx;
    views.speech.stop();
    views.advisorPanel.cancel();
    views.attachments.clear();
    state.armed = null;
    state.pendingDm = null;
  }

  /** Selects a channel; resolves true when its history is loaded (false for a channel the seat has not joined or the hub refused). */
  async select(name: string, reload = false): Promise<boolean> {
    const { ctx } = this;
    const { state } = ctx;
    ctx.views.tabs.show('thread', false);
    if (name === state.selected && !reload) {
      if (state.history) return true;
      if (state.pendingDm) return false;
    }
    this.leaveChannel();
    state.selected = name;
    state.unseen.delete(name);
    ctx.views.setChannel(name);
    const row = rowOf(state, name);
    const history = row && !row.member ? null : new ChannelHistory(ctx.hub, name);
    state.history = history;
    ctx.render.selection();
    if (!history) return false;
    const loaded = await ctx.calls.attempt(`reading ${name}`, () => history.loadLatest(row?.last_seq ?? 0).then(() => true));
    if (state.history !== history) return false;
    if (loaded) ctx.live.noteSeq(name, history.newest);
    ctx.render.thread();
    return loaded === true;
  }

  async refreshSelected(seq?: number): Promise<void> {
    const { ctx } = this;
    const history = ctx.state.history;
    if (!history) return;
    const ok = await ctx.calls.quietly(`reading ${history.channel}`, () => history.refresh(seq).then(() => true));
    if (!ok || ctx.state.history !== history) return;
    ctx.live.noteSeq(history.channel, history.newest);
    ctx.render.thread();
  }

  async open(channel: string, seq?: number): Promise<void> {
    const { ctx } = this;
    await this.select(channel);
    if (seq === undefined || !ctx.state.history) return;
    const history = ctx.state.history;
    if (!history.has(seq)) {
      await ctx.calls.attempt(`reading ${channel} #${seq}`, () => history.readOne(seq));
      ctx.render.thread();
    }
    ctx.views.thread.focus(seq);
  }

  async openFile(channel: string, path: string): Promise<void> {
    if (channel !== this.ctx.state.selected) await this.select(channel);
    this.ctx.views.tabs.show('files', false);
    // The list too: the Files tab was not shown through its own control, which lists.
    await Promise.all([this.ctx.views.vfs.openPath(path), this.ctx.views.vfs.load()]);
  }

  /** Opens the direct message with `peer`: the existing channel, or a new one its first message creates. */
  async startDm(peer: string): Promise<void> {
    const { ctx } = this;
    const { state } = ctx;
    const seat = state.identity.seat;
    if (!seat || !peer) return;
    const name = dmChannelName(seat, peer);
    if (hasRow(state, name)) {
      await this.select(name);
      return;
    }
    ctx.views.tabs.show('thread', false);
    this.leaveChannel();
    state.selected = name;
    state.pendingDm = peer;
    state.history = null;
    ctx.views.setChannel(null);
    this.setInfoOpen(false);
    ctx.render.selection();
  }

  /** A pending direct message the peer created meanwhile becomes the real channel. */
  async adoptCreatedDm(): Promise<void> {
    const { state } = this.ctx;
    if (state.pendingDm && state.selected && hasRow(state, state.selected)) await this.select(state.selected, true);
  }

  async joinSelected(): Promise<void> {
    const { ctx } = this;
    const name = ctx.state.selected;
    if (!name) return;
    const joined = await ctx.calls.attempt(`joining ${name}`, () => ctx.hub.join_channel(name));
    if (joined === undefined) return;
    await this.loadChannels();
    if (ctx.state.selected === name) await this.select(name, true);
  }

  async createChannel(name: string, isPrivate: boolean): Promise<boolean> {
    const { ctx } = this;
    const created = await ctx.calls.attempt(`creating ${name}`, () => ctx.hub.create_channel(name, isPrivate));
    if (!created) return false;
    await this.loadChannels();
    await this.select(created.name || name);
    return true;
  }

  setInfoOpen(open: boolean): void {
    const { ctx } = this;
    if (open === ctx.views.info.isOpen) return;
    ctx.views.info.setOpen(open);
    ctx.render.channel();
  }

  /** What showing a tab loads. */
  async showTab(key: TabKey): Promise<void> {
    const { views } = this.ctx;
    if (key === 'inbox') await views.inbox.load();
    else if (key === 'owed') await views.owed.load();
    else if (key === 'files') await views.vfs.load();
    else if (key === 'ledger') await views.ledger.load();
    else if (key === 'thread') await this.refreshSelected();
  }
}
