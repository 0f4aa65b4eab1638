/**
 * The host's advisor, shown in the page: the Summarise control and the `/assistant` command send it
 * the visible thread (frozen copies, retracted messages left out) and a question; its answer appears
 * here, labelled as not posted, and is never sent to the hub. A newer question, a channel change or
 * Dismiss aborts the one in flight, whose late answer is then dropped.
 */
import { button, h, replaceChildren } from './dom.js';
import type { MessageRow } from './hub-types.js';
import type { Advisor, AdvisorMessage, AdvisorRequest } from './props.js';
import { threadOrder } from './threading.js';

export const SUMMARY_QUESTION = 'Summarise this thread.';

/** The visible thread as the advisor sees it: thread order, no tombstones, frozen plain copies. */
export function advisorMessages(rows: Iterable<MessageRow>): ReadonlyArray<AdvisorMessage> {
  return Object.freeze(threadOrder(rows).filter(({ message }) => message.retracted !== true).map(({ message: m }) => Object.freeze({
    id: m.id,
    seq: m.seq,
    sender: m.sender,
    kind: m.kind ?? 'message',
    status: m.status ?? '',
    title: m.title ?? '',
    body: m.body ?? '',
    reply_to: m.reply_to ?? null,
    created_at: m.created_at,
  })));
}

export class AdvisorPanel {
  readonly element: HTMLElement;
  private controller: AbortController | null = null;

  constructor() {
    this.element = h('section', { testid: 'advisor-panel', class: 'tp-advisor', attrs: { hidden: true, 'aria-live': 'polite', 'aria-label': 'Assistant' } });
  }

  /** Asks the advisor; resolves true when an answer was shown. */
  async ask(advisor: Advisor, request: AdvisorRequest): Promise<boolean> {
    this.cancel();
    const controller = new AbortController();
    this.controller = controller;
    const answer = h('div', { testid: 'advisor-answer-text', class: 'tp-advisor__answer' }, 'Thinking…');
    const card = h('article', { testid: 'advisor-answer', class: 'tp-advisor__card', data: { state: 'pending', purpose: request.purpose, channel: request.channel } },
      h('header', { class: 'tp-advisor__head' },
        h('span', { class: 'tp-advisor__label' }, request.purpose === 'summary' ? 'Summary' : 'Assistant'),
        h('span', { class: 'tp-advisor__note' }, 'shown to you only — not posted to the hub'),
        button('Dismiss', 'advisor-dismiss', () => this.cancel(), { class: 'tp-button tp-button--quiet tp-button--small' })),
      request.purpose === 'assistant' ? h('p', { testid: 'advisor-question', class: 'tp-advisor__question' }, request.question) : null,
      answer);
    replaceChildren(this.element, card);
    this.element.hidden = false;
    try {
      const text = await advisor(request, controller.signal);
      if (controller.signal.aborted) return false;
      answer.textContent = typeof text === 'string' ? text : String(text ?? '');
      card.dataset.state = 'done';
      return true;
    } catch (err) {
      if (controller.signal.aborted) return false;
      answer.textContent = '';
      answer.append(h('span', { testid: 'advisor-error', class: 'tp-advisor__error' }, `The assistant failed: ${err instanceof Error ? err.message : String(err)}`));
      card.dataset.state = 'error';
      return false;
    } finally {
      if (this.controller === controller) this.controller = null;
    }
  }

  /** Aborts the question in flight and hides the panel. */
  cancel(): void {
    this.controller?.abort();
    this.controller = null;
    replaceChildren(this.element);
    this.element.hidden = true;
  }
}
