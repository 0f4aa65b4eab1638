/**
 * The selected channel's conversation: messages in thread order (replies under their parent,
 * indented), re-rendered from the loaded history. Stays pinned to the bottom when it was there.
 */
import { h, replaceChildren } from './dom.js';
import type { MessageRow } from './hub-types.js';
import { asksOf, renderMessage, type MessageActions } from './message-item.js';
import { threadOrder } from './threading.js';

export class ThreadView {
  readonly element: HTMLElement;
  private readonly heading: HTMLElement;
  private readonly list: HTMLElement;
  /** What the list shows now; an identical render is skipped so a poll never disturbs a click or a selection. */
  private shown = '';

  constructor(private readonly actions: MessageActions) {
    this.heading = h('h2', { testid: 'thread-channel', class: 'tp-thread__channel' }, 'No channel selected');
    this.list = h('div', { testid: 'thread-messages', class: 'tp-thread__messages', attrs: { role: 'log', 'aria-live': 'polite' } });
    this.element = h('section', { testid: 'thread', class: 'tp-thread' }, this.heading, this.list);
  }

  render(channel: string | null, messages: MessageRow[], viewer: { seat: string | null; operator: boolean }): void {
    const signature = JSON.stringify([channel, viewer, messages]);
    if (signature === this.shown) return;
    this.shown = signature;
    this.heading.textContent = channel ? channel : 'No channel selected';
    this.element.dataset.channel = channel ?? '';
    const atBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const seqById = new Map(messages.map((m) => [m.id, m.seq]));
    const askText = new Map(messages.flatMap((m) => asksOf(m).map((a) => [a.id, a.text] as const)));
    const rows = threadOrder(messages);
    if (!channel) {
      replaceChildren(this.list);
    } else if (rows.length === 0) {
      replaceChildren(this.list, h('p', { testid: 'thread-empty', class: 'tp-empty' }, 'No messages yet.'));
    } else {
      replaceChildren(this.list, ...rows.map(({ message, depth, orphan }) => renderMessage(message, {
        seat: viewer.seat,
        operator: viewer.operator,
        parentSeq: message.reply_to ? seqById.get(message.reply_to) ?? null : null,
        depth,
        orphan,
        askText,
      }, this.actions)));
    }
    if (atBottom) this.list.scrollTop = this.list.scrollHeight;
  }

  /** Scrolls to a message and flashes it (a search hit or inbox row was opened). */
  focus(seq: number): boolean {
    const el = this.list.querySelector<HTMLElement>(`[data-testid="message"][data-seq="${seq}"]`);
    if (!el) return false;
    el.scrollIntoView({ block: 'center' });
    el.classList.add('tp-message--focused');
    setTimeout(() => el.classList.remove('tp-message--focused'), 2000);
    return true;
  }
}
