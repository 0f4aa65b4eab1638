/**
 * The selected channel's conversation: messages in thread order (replies under their parent,
 * indented), re-rendered from the loaded history. Stays pinned to the bottom when it was there.
 * A focused message (a search hit, an inbox row, the host's focus) is scrolled to and highlighted.
 */
import type { AttachmentLoader } from './attachments.js';
import { h, replaceChildren } from './dom.js';
import type { MessageRow } from './hub-types.js';
import { asksOf, renderMessage, type MessageActions, type MessageFeatures } from './message-item.js';
import { threadOrder } from './threading.js';

export interface ThreadContext {
  seat: string | null;
  operator: boolean;
  features: MessageFeatures;
  /** Id of the message being spoken. */
  speaking: string | null;
  /** Id of the root whose Retract thread awaits confirmation. */
  armed: string | null;
  /** Shown instead of messages (not a member, a new direct message). */
  placeholder?: string | null;
}

const FOCUS_MS = 4000;

export class ThreadView {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly notice: HTMLElement;
  /** What the list shows now; an identical render is skipped so a poll never disturbs a click or a selection. */
  private shown = '';
  private last: { channel: string | null; messages: MessageRow[]; context: ThreadContext } | null = null;
  private focused: number | null = null;
  private focusTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly actions: MessageActions, private readonly attachments: AttachmentLoader) {
    this.notice = h('p', { testid: 'thread-notice', class: 'tp-thread__notice', attrs: { 'aria-live': 'polite', hidden: true } });
    this.list = h('div', { testid: 'thread-messages', class: 'tp-thread__messages', attrs: { role: 'log', 'aria-live': 'polite' } });
    this.element = h('section', { testid: 'thread', class: 'tp-thread' }, this.notice, this.list);
  }

  render(channel: string | null, messages: MessageRow[], context: ThreadContext): void {
    this.last = { channel, messages, context };
    const signature = JSON.stringify([channel, context, this.focused, messages]);
    if (signature === this.shown) return;
    if (channel !== this.element.dataset.channel) this.say(null);
    this.shown = signature;
    this.element.dataset.channel = channel ?? '';
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const seqById = new Map(messages.map((m) => [m.id, m.seq]));
    const askText = new Map(messages.flatMap((m) => asksOf(m).map((a) => [a.id, a.text] as const)));
    const rows = threadOrder(messages);
    if (!channel) {
      replaceChildren(this.list);
    } else if (context.placeholder) {
      replaceChildren(this.list, h('p', { testid: 'thread-placeholder', class: 'tp-empty' }, context.placeholder));
    } else if (rows.length === 0) {
      replaceChildren(this.list, h('p', { testid: 'thread-empty', class: 'tp-empty' }, 'No messages yet.'));
    } else {
      replaceChildren(this.list, ...rows.map(({ message, depth, orphan }, index) => renderMessage(message, {
        seat: context.seat,
        operator: context.operator,
        parentSeq: message.reply_to ? seqById.get(message.reply_to) ?? null : null,
        depth,
        orphan,
        askText,
        replies: depth === 0 ? repliesAfter(rows, index) : 0,
        armed: context.armed === message.id,
        speaking: context.speaking === message.id,
        focused: this.focused === message.seq,
        features: context.features,
        attachments: this.attachments,
      }, this.actions)));
    }
    if (atBottom && this.focused === null) this.list.scrollTop = this.list.scrollHeight;
  }

  /** Scrolls to a message and highlights it for a few seconds; false when it is not rendered. */
  focus(seq: number): boolean {
    if (this.focusTimer) clearTimeout(this.focusTimer);
    this.focused = seq;
    this.rerender();
    const el = this.list.querySelector<HTMLElement>(`[data-testid="message"][data-seq="${seq}"]`);
    if (!el) {
      this.focused = null;
      this.rerender();
      return false;
    }
    el.scrollIntoView({ block: 'center' });
    this.focusTimer = setTimeout(() => {
      this.focusTimer = null;
      this.focused = null;
      this.rerender();
    }, FOCUS_MS);
    return true;
  }

  /** A one-line note above the thread (null clears it). */
  say(text: string | null): void {
    this.notice.textContent = text ?? '';
    this.notice.hidden = !text;
  }

  private rerender(): void {
    if (this.last) this.render(this.last.channel, this.last.messages, this.last.context);
  }
}

/** Rows under the root at `index` in thread order (its whole trail, whatever the capped depth). */
function repliesAfter(rows: ReadonlyArray<{ depth: number }>, index: number): number {
  let count = 0;
  for (let i = index + 1; i < rows.length && rows[i]!.depth > 0; i++) count++;
  return count;
}
