/**
 * The composer: title, status, body, new asks (one per line) and files to attach (uploaded when the
 * post is sent). A reply is started from a message (its Reply or Answer control), never by typing
 * an id: the composer shows what it replies to (and which asks it answers, by their text) with a
 * Cancel. Post stays disabled, with a note, until there is a body or a file to send (the hub takes
 * an empty body only with attachments or data). With a host advisor, a body of
 * `/assistant <question>` asks the advisor instead of posting. The composer is disabled while the
 * hub is paused; the fields are kept when the hub refuses a post. For a direct message not created
 * yet only title, body and status apply.
 */
import { assistantQuestion, ASSISTANT_COMMAND } from './assistant-command.js';
import { button, h, replaceChildren } from './dom.js';
import type { Ask, MessageRow, PostMessageArgs } from './hub-types.js';

export const STATUSES = ['fyi', 'open', 'blocked', 'reply', 'resolved'] as const;

export type ComposerMode = 'channel' | 'new-dm';

/** Shown while there is nothing to send. */
export const EMPTY_NOTE = 'Write a message (or attach a file) to post.';
const EMPTY_DM_NOTE = 'Write a message to send.';
const PREVIEW_CHARS = 60;

export interface ComposerHandlers {
  /** Posts; resolves true when the hub took it (the fields are then cleared). */
  post(args: PostMessageArgs, files: File[]): Promise<boolean>;
  /** Asks the host advisor (only called when the assistant command is enabled). */
  assistant(question: string): Promise<boolean>;
}

/** The message a reply answers, and the asks of it the reply answers. */
interface ReplyTarget {
  id: string;
  seq: number;
  sender: string;
  preview: string;
  answers: Ask[];
}

export class Composer {
  readonly element: HTMLFormElement;
  private readonly title: HTMLInputElement;
  private readonly body: HTMLTextAreaElement;
  private readonly status: HTMLSelectElement;
  private readonly replyBox: HTMLElement;
  private readonly asks: HTMLTextAreaElement;
  private readonly files: HTMLInputElement;
  private readonly fileList: HTMLElement;
  private readonly submit: HTMLButtonElement;
  private readonly note: HTMLElement;
  /** Fields that only apply to a channel that exists (hidden for a new direct message). */
  private readonly channelOnly: HTMLElement[];
  private target: ReplyTarget | null = null;
  private busy = false;
  private enabled = true;
  private assistantOn = false;
  private mode: ComposerMode = 'channel';
  private reason = '';

  constructor(private readonly handlers: ComposerHandlers) {
    this.title = h('input', { testid: 'composer-title', class: 'tp-input', attrs: { type: 'text', maxlength: 120, placeholder: 'Title (optional)', 'aria-label': 'Title' } });
    this.body = h('textarea', { testid: 'composer-body', class: 'tp-input tp-input--area', attrs: { rows: 3, placeholder: 'Message', 'aria-label': 'Message' }, on: { input: () => this.refresh() } });
    this.status = h('select', { testid: 'composer-status', class: 'tp-input tp-input--status', attrs: { 'aria-label': 'Status', title: 'Status: fyi informs, open asks for answers, reply answers a message' } },
      ...STATUSES.map((s) => h('option', { attrs: { value: s } }, s)));
    this.replyBox = h('div', { testid: 'composer-reply-target', class: 'tp-composer__reply', attrs: { hidden: true } });
    this.asks = h('textarea', { testid: 'composer-asks', class: 'tp-input tp-input--area tp-input--asks', attrs: { rows: 1, placeholder: 'Asks: one per line (optional)', 'aria-label': 'Asks, one per line' } });
    this.files = h('input', { testid: 'composer-file', class: 'tp-input tp-input--file', attrs: { type: 'file', multiple: true, 'aria-label': 'Attach files' }, on: { change: () => this.showFiles() } });
    this.fileList = h('ul', { testid: 'composer-files', class: 'tp-composer__files' });
    this.submit = h('button', { testid: 'composer-submit', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Post');
    this.note = h('span', { testid: 'composer-note', class: 'tp-composer__note', attrs: { 'aria-live': 'polite' } });
    const extras = h('div', { class: 'tp-composer__row tp-composer__row--extras' }, this.asks, this.files);
    this.channelOnly = [extras, this.fileList];
    this.element = h('form', { testid: 'composer', class: 'tp-composer', on: { submit: (event) => { event.preventDefault(); void this.send(); } } },
      this.replyBox,
      h('div', { class: 'tp-composer__row' }, this.title, this.status),
      this.body,
      extras,
      this.fileList,
      h('div', { class: 'tp-composer__row tp-composer__row--send' }, this.note, this.submit),
    );
    this.body.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.send();
      }
    });
    this.refresh();
  }

  /** Enables or disables posting (hub paused, no channel), with the reason shown. */
  setEnabled(enabled: boolean, reason = ''): void {
    this.enabled = enabled;
    this.reason = enabled ? '' : reason;
    this.refresh();
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
    this.refresh();
  }

  /** Files chosen for the next post. */
  chosenFiles(): File[] {
    return this.mode === 'new-dm' ? [] : [...(this.files.files ?? [])];
  }

  /** Prepares a reply to a message (its Reply control). */
  prepareReply(message: MessageRow): void {
    if (this.target?.id !== message.id) this.setTarget(message, []);
    if (this.status.value === 'fyi') this.status.value = 'reply';
    this.body.focus();
  }

  /** Prepares the answer to one ask of a message (its Answer control); more asks of the same message add up. */
  prepareAnswer(message: MessageRow, ask: Ask): void {
    const answers = this.target?.id === message.id ? this.target.answers : [];
    this.setTarget(message, answers.some((a) => a.id === ask.id) ? answers : [...answers, ask]);
    this.status.value = 'reply';
    this.body.focus();
  }

  /** Back to a plain post (the Cancel of the reply target). */
  clearReply(): void {
    this.target = null;
    if (this.status.value === 'reply') this.status.value = 'fyi';
    this.showTarget();
  }

  /** The post arguments the fields describe. */
  args(): PostMessageArgs {
    const args: PostMessageArgs = { body: this.body.value, status: this.status.value };
    const title = this.title.value.trim();
    if (title) args.title = title;
    if (this.target) args.reply_to = this.target.id;
    if (this.target?.answers.length) args.answers = this.target.answers.map((a) => a.id);
    const asks = this.asks.value.split('\n').map((line) => line.trim()).filter(Boolean);
    // Ask ids are unique per channel and minted by the hub when the post leaves them out.
    if (asks.length) args.asks = asks.map((text) => ({ text }));
    return args;
  }

  /** Something to send: a body that is not only whitespace, or a file. */
  private hasContent(): boolean {
    return this.body.value.trim() !== '' || this.chosenFiles().length > 0;
  }

  /** Post's state and the note under the composer follow the fields. */
  private refresh(): void {
    const empty = !this.hasContent();
    this.submit.disabled = !this.enabled || this.busy || empty;
    this.note.textContent = this.reason || (this.enabled && empty ? (this.mode === 'new-dm' ? EMPTY_DM_NOTE : EMPTY_NOTE) : '');
  }

  private setTarget(message: MessageRow, answers: Ask[]): void {
    const text = (message.title || message.body || '').replace(/\s+/g, ' ').trim();
    const preview = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
    this.target = { id: message.id, seq: message.seq, sender: message.sender, preview, answers };
    this.showTarget();
  }

  private showTarget(): void {
    const t = this.target;
    this.replyBox.hidden = !t;
    if (!t) {
      replaceChildren(this.replyBox);
      delete this.replyBox.dataset.replyTo;
      return;
    }
    this.replyBox.dataset.replyTo = t.id;
    replaceChildren(this.replyBox,
      h('span', { class: 'tp-composer__reply-text' }, `↳ Replying to #${t.seq} ${t.sender}`, t.preview ? h('span', { class: 'tp-composer__reply-preview' }, ` — ${t.preview}`) : null),
      t.answers.length
        ? h('span', { testid: 'composer-answering', class: 'tp-composer__answering', data: { answers: t.answers.map((a) => a.id).join(' ') } },
          `answering ${t.answers.map((a) => `“${a.text || a.id}”`).join(', ')}`)
        : null,
      button('Cancel reply', 'composer-clear-reply', () => this.clearReply(), { class: 'tp-button tp-button--small tp-button--quiet', attrs: { title: 'Post this as a new message instead' } }));
  }

  private async send(): Promise<void> {
    if (this.busy || !this.enabled) return;
    const question = this.assistantOn ? assistantQuestion(this.body.value) : null;
    if (question === '') {
      this.note.textContent = `Type a question after ${ASSISTANT_COMMAND}.`;
      return;
    }
    // Never an empty post: the button is disabled, and Ctrl+Enter lands here.
    if (question === null && !this.hasContent()) {
      this.refresh();
      this.body.focus();
      return;
    }
    this.busy = true;
    this.refresh();
    try {
      if (question !== null) {
        if (await this.handlers.assistant(question)) this.body.value = '';
      } else if (await this.handlers.post(this.args(), this.chosenFiles())) {
        this.reset();
      }
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  private showFiles(): void {
    replaceChildren(this.fileList, ...[...(this.files.files ?? [])].map((f) => h('li', { testid: 'composer-file-chip', class: 'tp-chip', data: { name: f.name } }, f.name)));
    this.refresh();
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
