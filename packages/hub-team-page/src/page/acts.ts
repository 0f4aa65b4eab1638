/**
 * The person's acts on the thread: post (with uploads, or the first message of a new direct
 * message), reply and answer (preparing the composer), rate, retract one message or a whole thread,
 * and download an attachment. The hub decides each; a refusal shows verbatim (calls.ts).
 */
import type { Ask, AttachmentRef, MessageRow, PostMessageArgs } from '../hub-types.js';
import type { PageContext } from './context.js';
import type { ChannelNavigation } from './navigation.js';

/** The hub's refusal of a post by a seat that owes a charter reading. */
const CHARTER_GATE = /requires reading its charter/i;

export class ThreadActs {
  constructor(private readonly ctx: PageContext, private readonly nav: ChannelNavigation) {}

  async post(args: PostMessageArgs, files: File[]): Promise<boolean> {
    const { ctx } = this;
    if (ctx.state.pendingDm) return this.sendFirstDm(ctx.state.pendingDm, args);
    const history = ctx.state.history;
    if (!history) return false;
    const channel = history.channel;
    if (files.length) {
      const refs: Array<{ id: string; filename: string }> = [];
      for (const file of files) {
        const uploaded = await ctx.calls.attempt(`uploading ${file.name}`, () => ctx.hub.upload_attachment(channel, file, { filename: file.name }));
        if (!uploaded) return false;
        refs.push({ id: uploaded.id, filename: uploaded.filename || file.name });
      }
      args = { ...args, attachments: refs };
    }
    const posted = await ctx.calls.attempt(`posting to ${channel}`, () => ctx.hub.post_message(channel, args), (refusal) => this.onPostRefused(refusal));
    if (!posted) return false;
    history.fold(posted);
    ctx.render.thread();
    void this.nav.refreshSelected();
    return true;
  }

  reply(message: MessageRow): void {
    this.ctx.views.composer.prepareReply(message);
  }

  answer(message: MessageRow, ask: Ask): void {
    this.ctx.views.tabs.show('thread', false);
    this.ctx.views.composer.prepareAnswer(message, ask);
  }

  async rate(message: MessageRow, value: 1 | -1): Promise<void> {
    const { ctx } = this;
    const history = ctx.state.history;
    if (!history) return;
    const again = message.ratings?.mine === value;
    const done = await ctx.calls.attempt(again ? `removing your rating of #${message.seq}` : `rating #${message.seq}`,
      () => again ? ctx.hub.unrate_message(history.channel, message.id) : ctx.hub.rate_message(history.channel, message.id, value));
    if (done === undefined) return;
    await ctx.calls.quietly('re-reading the rated message', () => history.readOne(message.seq));
    ctx.render.thread();
  }

  async retract(message: MessageRow): Promise<void> {
    const { ctx } = this;
    const history = ctx.state.history;
    if (!history) return;
    const tombstone = await ctx.calls.attempt(`retracting #${message.seq}`, () => ctx.hub.retract_message(history.channel, message.id));
    if (!tombstone) return;
    history.fold({ ...message, ...tombstone, retracted: true });
    ctx.render.thread();
    void this.nav.refreshSelected(message.seq);
  }

  armThread(message: MessageRow | null): void {
    this.ctx.state.armed = message?.id ?? null;
    this.ctx.render.thread();
  }

  /** Retracts a root and every reply under it in one act; the hub refuses it whole (nothing retracted) when it may not. */
  async retractThread(message: MessageRow): Promise<void> {
    const { ctx } = this;
    const history = ctx.state.history;
    ctx.state.armed = null;
    ctx.render.thread();
    if (!history) return;
    const result = await ctx.calls.attempt(`retracting the thread of #${message.seq}`, () => ctx.hub.retract_thread(history.channel, message.id));
    if (!result) return;
    for (const row of result.messages ?? []) history.fold({ ...(history.byId(row.id) ?? {}), ...row, retracted: true } as MessageRow);
    const already = result.already_retracted?.length ?? 0;
    const skipped = result.skipped_non_messages?.length ?? 0;
    ctx.views.thread.say(`Retracted ${result.count} message${result.count === 1 ? '' : 's'} of the thread of #${message.seq}`
      + `${already ? `; ${already} already retracted` : ''}${skipped ? `; ${skipped} non-message rows left as they are` : ''}.`);
    ctx.render.thread();
    void this.nav.refreshSelected(message.seq);
  }

  async download(message: MessageRow, ref: AttachmentRef): Promise<void> {
    const { ctx } = this;
    const channel = message.channel || ctx.state.selected;
    if (!channel) return;
    await ctx.calls.attempt(`downloading ${ref.filename}`, () => ctx.views.attachments.download(channel, ref));
  }

  /** The first message of a new direct message: `send_dm` creates the channel, which is then selected. */
  private async sendFirstDm(peer: string, args: PostMessageArgs): Promise<boolean> {
    const { ctx } = this;
    const dm = { body: args.body, title: args.title, status: args.status };
    const sent = await ctx.calls.attempt(`messaging ${peer}`, () => ctx.hub.send_dm(peer, dm), (refusal) => this.onPostRefused(refusal));
    if (!sent) return false;
    await this.nav.loadChannels();
    const name = sent.channel || (ctx.state.selected ?? '');
    if (ctx.state.pendingDm === peer) await this.nav.select(name, true);
    return true;
  }

  /** A post refused for an unread charter: the Owed panel shows which charter to read. */
  private onPostRefused(refusal: string): void {
    if (CHARTER_GATE.test(refusal)) void this.ctx.views.owed.load();
  }
}
