/**
 * The composer: title, body, status, reply-to, the ask ids this post answers, and new asks (one
 * per line). Answering an ask pre-fills reply-to, answers and status `reply`. The composer is
 * disabled while the hub is paused; the fields are kept when the hub refuses a post.
 */
import { button, field, h } from './dom.js';
import type { PostMessageArgs } from './hub-types.js';

export const STATUSES = ['fyi', 'open', 'blocked', 'reply', 'resolved'] as const;

export class Composer {
  readonly element: HTMLFormElement;
  private readonly title: HTMLInputElement;
  private readonly body: HTMLTextAreaElement;
  private readonly status: HTMLSelectElement;
  private readonly replyTo: HTMLInputElement;
  private readonly answers: HTMLInputElement;
  private readonly asks: HTMLTextAreaElement;
  private readonly submit: HTMLButtonElement;
  private readonly note: HTMLElement;
  private busy = false;
  private enabled = true;

  constructor(private readonly onSubmit: (args: PostMessageArgs) => Promise<boolean>) {
    this.title = h('input', { testid: 'composer-title', class: 'tp-input', attrs: { type: 'text', maxlength: 120, placeholder: 'Title (optional)' } });
    this.body = h('textarea', { testid: 'composer-body', class: 'tp-input tp-input--area', attrs: { rows: 3, placeholder: 'Message' } });
    this.status = h('select', { testid: 'composer-status', class: 'tp-input' }, ...STATUSES.map((s) => h('option', { attrs: { value: s } }, s)));
    this.replyTo = h('input', { testid: 'composer-reply-to', class: 'tp-input', attrs: { type: 'text', placeholder: 'message id' } });
    this.answers = h('input', { testid: 'composer-answers', class: 'tp-input', attrs: { type: 'text', placeholder: 'ask ids, comma separated' } });
    this.asks = h('textarea', { testid: 'composer-asks', class: 'tp-input tp-input--area', attrs: { rows: 2, placeholder: 'One ask per line' } });
    this.submit = h('button', { testid: 'composer-submit', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Post');
    this.note = h('span', { testid: 'composer-note', class: 'tp-composer__note' });
    this.element = h('form', { testid: 'composer', class: 'tp-composer', on: { submit: (event) => { event.preventDefault(); void this.send(); } } },
      h('div', { class: 'tp-composer__row' }, field('Title', this.title), field('Status', this.status)),
      field('Body', this.body),
      h('div', { class: 'tp-composer__row' },
        field('Reply to', this.replyTo),
        field('Answers', this.answers),
        button('Clear reply', 'composer-clear-reply', () => this.clearReply(), { class: 'tp-button tp-button--quiet' })),
      field('Asks', this.asks),
      h('div', { class: 'tp-composer__row' }, this.submit, this.note),
    );
    this.body.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.send();
      }
    });
  }

  /** Enables or disables posting (hub paused, no channel), with the reason shown. */
  setEnabled(enabled: boolean, reason = ''): void {
    this.enabled = enabled;
    this.submit.disabled = !enabled || this.busy;
    this.note.textContent = enabled ? '' : reason;
  }

  /** Prepares a reply to a message. */
  prepareReply(messageId: string): void {
    this.replyTo.value = messageId;
    if (this.status.value === 'fyi') this.status.value = 'reply';
    this.body.focus();
  }

  /** Prepares the answer to one ask of a message. */
  prepareAnswer(messageId: string, askId: string): void {
    this.replyTo.value = messageId;
    const current = splitList(this.answers.value);
    if (!current.includes(askId)) current.push(askId);
    this.answers.value = current.join(', ');
    this.status.value = 'reply';
    this.body.focus();
  }

  clearReply(): void {
    this.replyTo.value = '';
    this.answers.value = '';
    if (this.status.value === 'reply') this.status.value = 'fyi';
  }

  /** The post arguments the fields describe. */
  args(): PostMessageArgs {
    const args: PostMessageArgs = { body: this.body.value, status: this.status.value };
    const title = this.title.value.trim();
    if (title) args.title = title;
    const replyTo = this.replyTo.value.trim();
    if (replyTo) args.reply_to = replyTo;
    const answers = splitList(this.answers.value);
    if (answers.length) args.answers = answers;
    const asks = this.asks.value.split('\n').map((line) => line.trim()).filter(Boolean);
    // Ask ids are unique per channel and minted by the hub when the post leaves them out.
    if (asks.length) args.asks = asks.map((text) => ({ text }));
    return args;
  }

  private async send(): Promise<void> {
    if (this.busy || !this.enabled) return;
    this.busy = true;
    this.submit.disabled = true;
    try {
      const ok = await this.onSubmit(this.args());
      if (ok) this.reset();
    } finally {
      this.busy = false;
      this.submit.disabled = !this.enabled;
    }
  }

  private reset(): void {
    this.title.value = '';
    this.body.value = '';
    this.asks.value = '';
    this.clearReply();
    this.status.value = 'fyi';
  }
}

function splitList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}
