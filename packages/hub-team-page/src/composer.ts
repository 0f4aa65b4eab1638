/**
 * The composer: title, body, status, reply-to, the ask ids this post answers, new asks (one per
 * line) and files to attach (uploaded when the post is sent). Answering an ask pre-fills reply-to,
 * answers and status `reply`. With a host advisor, a body of `/assistant <question>` asks the
 * advisor instead of posting. The composer is disabled while the hub is paused; the fields are kept
 * when the hub refuses a post. For a direct message not created yet only title, body and status apply.
 */
import { assistantQuestion, ASSISTANT_COMMAND } from './assistant-command.js';
import { button, field, h, replaceChildren } from './dom.js';
import type { PostMessageArgs } from './hub-types.js';

export const STATUSES = ['fyi', 'open', 'blocked', 'reply', 'resolved'] as const;

export type ComposerMode = 'channel' | 'new-dm';

export interface ComposerHandlers {
  /** Posts; resolves true when the hub took it (the fields are then cleared). */
  post(args: PostMessageArgs, files: File[]): Promise<boolean>;
  /** Asks the host advisor (only called when the assistant command is enabled). */
  assistant(question: string): Promise<boolean>;
}

export class Composer {
  readonly element: HTMLFormElement;
  private readonly title: HTMLInputElement;
  private readonly body: HTMLTextAreaElement;
  private readonly status: HTMLSelectElement;
  private readonly replyTo: HTMLInputElement;
  private readonly answers: HTMLInputElement;
  private readonly asks: HTMLTextAreaElement;
  private readonly files: HTMLInputElement;
  private readonly fileList: HTMLElement;
  private readonly submit: HTMLButtonElement;
  private readonly note: HTMLElement;
  /** Fields that only apply to a channel that exists (hidden for a new direct message). */
  private readonly channelOnly: HTMLElement[];
  private busy = false;
  private enabled = true;
  private assistantOn = false;
  private mode: ComposerMode = 'channel';
  private reason = '';

  constructor(private readonly handlers: ComposerHandlers) {
    this.title = h('input', { testid: 'composer-title', class: 'tp-input', attrs: { type: 'text', maxlength: 120, placeholder: 'Title (optional)' } });
    this.body = h('textarea', { testid: 'composer-body', class: 'tp-input tp-input--area', attrs: { rows: 3, placeholder: 'Message' } });
    this.status = h('select', { testid: 'composer-status', class: 'tp-input' }, ...STATUSES.map((s) => h('option', { attrs: { value: s } }, s)));
    this.replyTo = h('input', { testid: 'composer-reply-to', class: 'tp-input', attrs: { type: 'text', placeholder: 'message id' } });
    this.answers = h('input', { testid: 'composer-answers', class: 'tp-input', attrs: { type: 'text', placeholder: 'ask ids, comma separated' } });
    this.asks = h('textarea', { testid: 'composer-asks', class: 'tp-input tp-input--area', attrs: { rows: 2, placeholder: 'One ask per line' } });
    this.files = h('input', { testid: 'composer-file', class: 'tp-input tp-input--file', attrs: { type: 'file', multiple: true }, on: { change: () => this.showFiles() } });
    this.fileList = h('ul', { testid: 'composer-files', class: 'tp-composer__files' });
    this.submit = h('button', { testid: 'composer-submit', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Post');
    this.note = h('span', { testid: 'composer-note', class: 'tp-composer__note' });
    const replyRow = h('div', { class: 'tp-composer__row' },
      field('Reply to', this.replyTo),
      field('Answers', this.answers),
      button('Clear reply', 'composer-clear-reply', () => this.clearReply(), { class: 'tp-button tp-button--quiet' }));
    const asksField = field('Asks', this.asks);
    const filesRow = h('div', { class: 'tp-composer__row' }, field('Attach files', this.files), this.fileList);
    this.channelOnly = [replyRow, asksField, filesRow];
    this.element = h('form', { testid: 'composer', class: 'tp-composer', on: { submit: (event) => { event.preventDefault(); void this.send(); } } },
      h('div', { class: 'tp-composer__row' }, field('Title', this.title), field('Status', this.status)),
      field('Body', this.body),
      replyRow,
      asksField,
      filesRow,
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
    this.reason = enabled ? '' : reason;
    this.submit.disabled = !enabled || this.busy;
    this.note.textContent = this.reason;
  }

  /** Recognises `/assistant <question>` (only when the host gave an advisor). */
  setAssistant(enabled: boolean): void {
    this.assistantOn = enabled;
    this.body.placeholder = enabled ? `Message — or ${ASSISTANT_COMMAND} <question> to ask the assistant (not posted)` : 'Message';
    this.element.dataset.assistant = enabled ? 'true' : 'false';
  }

  /** `new-dm`: the first message of a direct message (title, body and status only). */
  setMode(mode: ComposerMode): void {
    if (mode === this.mode) return;
    this.mode = mode;
    for (const el of this.channelOnly) el.hidden = mode === 'new-dm';
    this.submit.textContent = mode === 'new-dm' ? 'Send' : 'Post';
    if (mode === 'new-dm') {
      this.clearReply();
      this.asks.value = '';
      this.clearFiles();
    }
  }

  /** Files chosen for the next post. */
  chosenFiles(): File[] {
    return this.mode === 'new-dm' ? [] : [...(this.files.files ?? [])];
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
    const question = this.assistantOn ? assistantQuestion(this.body.value) : null;
    if (question === '') {
      this.note.textContent = `Type a question after ${ASSISTANT_COMMAND}.`;
      return;
    }
    this.busy = true;
    this.submit.disabled = true;
    this.note.textContent = this.reason;
    try {
      if (question !== null) {
        if (await this.handlers.assistant(question)) this.body.value = '';
      } else if (await this.handlers.post(this.args(), this.chosenFiles())) {
        this.reset();
      }
    } finally {
      this.busy = false;
      this.submit.disabled = !this.enabled;
    }
  }

  private showFiles(): void {
    replaceChildren(this.fileList, ...[...(this.files.files ?? [])].map((f) => h('li', { testid: 'composer-file-chip', class: 'tp-chip', data: { name: f.name } }, f.name)));
  }

  private clearFiles(): void {
    this.files.value = '';
    this.showFiles();
  }

  private reset(): void {
    this.title.value = '';
    this.body.value = '';
    this.asks.value = '';
    this.clearReply();
    this.clearFiles();
    this.status.value = 'fyi';
  }
}

function splitList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter(Boolean);
}
