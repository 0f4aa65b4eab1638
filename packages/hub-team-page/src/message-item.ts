/**
 * One message of a thread: header (seq, sender, status, time, reply marker), title, body, asks
 * with their answer controls, answers, attachments, work-id chips, the rating tally with the
 * viewer's own mark, and the reply, speak, retract and retract-thread controls. A retracted message
 * renders dimmed with the hub's tombstone text. Controls are offered, never decided: the hub accepts
 * or refuses each act.
 */
import { renderAttachments } from './attachment-list.js';
import { attachmentsOf, type AttachmentLoader } from './attachments.js';
import { button, formatTime, h } from './dom.js';
import type { Ask, AttachmentRef, MessageRow } from './hub-types.js';
import { workIdsOf } from './work-ids.js';

export interface MessageActions {
  reply(message: MessageRow): void;
  answer(message: MessageRow, ask: Ask): void;
  rate(message: MessageRow, value: 1 | -1): void;
  retract(message: MessageRow): void;
  /** First press of Retract thread arms it (null disarms); the confirmation retracts. */
  armThread(message: MessageRow | null): void;
  retractThread(message: MessageRow): void;
  /** Starts or stops speaking the message (only offered when the host gave a speech callback). */
  speak(message: MessageRow): void;
  /** Opens a work item on the host's board (only offered when the host gave board navigation). */
  openBoard(workId: string): void;
  download(message: MessageRow, ref: AttachmentRef): void;
}

/** The optional host features a message offers. */
export interface MessageFeatures {
  speak: boolean;
  board: boolean;
}

export interface MessageView {
  /** The viewer's seat id. */
  seat: string | null;
  operator: boolean;
  /** Seq of the message this one replies to, when loaded. */
  parentSeq: number | null;
  depth: number;
  orphan: boolean;
  /** Ask texts of the loaded messages by ask id, to show what an answer answers. */
  askText: ReadonlyMap<string, string>;
  /** Loaded replies under this message (all depths). */
  replies: number;
  /** Retract thread was pressed once on this message and awaits confirmation. */
  armed: boolean;
  /** This message is being spoken. */
  speaking: boolean;
  /** Host-focused: highlighted. */
  focused: boolean;
  features: MessageFeatures;
  attachments: AttachmentLoader;
}

export function asksOf(message: MessageRow): Ask[] {
  const asks = message.data?.asks;
  if (!Array.isArray(asks)) return [];
  return asks.flatMap((a: unknown) => {
    const ask = a as { id?: unknown; text?: unknown };
    return typeof ask?.id === 'string' ? [{ id: ask.id, text: typeof ask.text === 'string' ? ask.text : '' }] : [];
  });
}

export function answersOf(message: MessageRow): string[] {
  const answers = message.data?.answers;
  return Array.isArray(answers) ? answers.filter((a): a is string => typeof a === 'string') : [];
}

export function renderMessage(message: MessageRow, view: MessageView, actions: MessageActions): HTMLElement {
  const retracted = message.retracted === true;
  const isUserMessage = message.kind === 'message' || !message.kind;
  const classes = ['tp-message', `tp-message--${message.kind || 'message'}`];
  if (retracted) classes.push('tp-message--retracted');
  if (message.sender === view.seat) classes.push('tp-message--mine');
  if (view.focused) classes.push('tp-message--focused');

  const el = h('article', {
    testid: 'message',
    class: classes.join(' '),
    data: {
      id: message.id, seq: message.seq, sender: message.sender, status: message.status, kind: message.kind,
      retracted: retracted ? 'true' : 'false', depth: view.depth, focused: view.focused ? 'true' : null,
    },
  });
  el.style.setProperty('--tp-depth', String(view.depth));

  const replyMarker = message.reply_to
    ? h('span', { testid: 'message-reply-to', class: 'tp-message__reply-to', data: { replyTo: message.reply_to } },
      view.parentSeq !== null ? `↳ #${view.parentSeq}` : `↳ ${message.reply_to}${view.orphan ? ' (not loaded)' : ''}`)
    : null;
  el.append(h('header', { class: 'tp-message__head' },
    h('span', { testid: 'message-seq', class: 'tp-message__seq' }, `#${message.seq}`),
    h('span', { testid: 'message-sender', class: 'tp-message__sender' }, message.sender),
    h('span', { testid: 'message-status', class: `tp-status tp-status--${message.status}` }, message.status),
    replyMarker,
    h('time', { class: 'tp-message__time' }, formatTime(message.created_at)),
  ));
  if (message.title) el.append(h('h3', { testid: 'message-title', class: 'tp-message__title' }, message.title));
  el.append(h('p', { testid: 'message-body', class: 'tp-message__body' }, message.body));

  if (!retracted) {
    const asks = asksOf(message);
    // A message as the post answered it carries no per-viewer fields yet: nothing has answered its asks.
    const pending = new Set(message.pending_asks === undefined ? asks.map((a) => a.id) : (message.pending_asks ?? []));
    if (asks.length) {
      el.append(h('ul', { testid: 'message-asks', class: 'tp-asks' }, ...asks.map((ask) => h('li', {
        testid: 'ask',
        class: pending.has(ask.id) ? 'tp-ask tp-ask--pending' : 'tp-ask tp-ask--answered',
        data: { askId: ask.id, pending: pending.has(ask.id) ? 'true' : 'false' },
      },
      h('span', { class: 'tp-ask__text' }, ask.text),
      h('span', { class: 'tp-ask__state' }, pending.has(ask.id) ? 'pending' : 'answered'),
      pending.has(ask.id) ? button('Answer', 'answer-ask', () => actions.answer(message, ask), { class: 'tp-button tp-button--small' }) : null))));
    }
    const answers = answersOf(message);
    if (answers.length) {
      el.append(h('p', { testid: 'message-answers', class: 'tp-message__answers', data: { answers: answers.join(' ') } },
        `answers: ${answers.map((id) => view.askText.has(id) ? `“${view.askText.get(id)}”` : id).join(', ')}`));
    }
    if (message.has_resolved_reply) el.append(h('span', { testid: 'message-resolved', class: 'tp-chip tp-chip--ok' }, 'resolved'));
    const files = attachmentsOf(message);
    if (files.length) el.append(renderAttachments(message.channel, files, view.attachments, (ref) => actions.download(message, ref)));
    const work = workIdsOf(message);
    if (work.length) {
      el.append(h('div', { testid: 'message-work', class: 'tp-message__work' }, ...work.map((id) => view.features.board
        ? button(id, 'work-chip', () => actions.openBoard(id), { class: 'tp-chip tp-chip--work tp-chip--link', data: { workId: id }, attrs: { title: `Open ${id} on the board` } })
        : h('span', { testid: 'work-chip', class: 'tp-chip tp-chip--work', data: { workId: id } }, id))));
    }
  }

  const foot = h('footer', { class: 'tp-message__foot' });
  if (!retracted && isUserMessage && message.ratings !== undefined) {
    const ratings = message.ratings ?? { up: 0, down: 0, mine: 0 };
    foot.append(
      button(`▲ ${ratings.up}`, 'rate-up', () => actions.rate(message, 1), { class: `tp-button tp-button--small tp-rate${ratings.mine === 1 ? ' tp-rate--mine' : ''}`, attrs: { 'aria-pressed': ratings.mine === 1 ? 'true' : 'false', title: 'Rate up' } }),
      button(`▼ ${ratings.down}`, 'rate-down', () => actions.rate(message, -1), { class: `tp-button tp-button--small tp-rate${ratings.mine === -1 ? ' tp-rate--mine' : ''}`, attrs: { 'aria-pressed': ratings.mine === -1 ? 'true' : 'false', title: 'Rate down' } }),
      h('span', { testid: 'rating-mine', class: 'tp-message__mine', data: { mine: ratings.mine } }, ratings.mine === 1 ? 'you: up' : ratings.mine === -1 ? 'you: down' : ''),
    );
  }
  if (!retracted && isUserMessage) foot.append(button('Reply', 'reply-button', () => actions.reply(message), { class: 'tp-button tp-button--small' }));
  if (!retracted && view.features.speak && (message.title || message.body)) {
    foot.append(button(view.speaking ? 'Stop' : 'Speak', 'speak-button', () => actions.speak(message), {
      class: `tp-button tp-button--small${view.speaking ? ' tp-button--active' : ''}`,
      attrs: { 'aria-pressed': view.speaking ? 'true' : 'false', title: view.speaking ? 'Stop speaking' : 'Speak this message' },
      data: { speaking: view.speaking ? 'true' : 'false' },
    }));
  }
  if (!retracted && (isUserMessage || view.operator)) {
    foot.append(button('Retract', 'retract-button', () => actions.retract(message), { class: 'tp-button tp-button--small tp-button--danger' }));
  }
  // A root with replies: retract the whole trail (the hub refuses it, retracting nothing, when the trail has other authors and the viewer is no operator).
  if (!retracted && isUserMessage && !message.reply_to && view.replies > 0) {
    if (view.armed) {
      foot.append(
        button(`Retract ${view.replies + 1} messages`, 'retract-thread-confirm', () => actions.retractThread(message), { class: 'tp-button tp-button--small tp-button--danger tp-button--active' }),
        button('Cancel', 'retract-thread-cancel', () => actions.armThread(null), { class: 'tp-button tp-button--small tp-button--quiet' }),
      );
    } else {
      foot.append(button('Retract thread', 'retract-thread-button', () => actions.armThread(message), { class: 'tp-button tp-button--small tp-button--danger', attrs: { title: 'Retract this message and every reply under it' } }));
    }
  }
  if (foot.childNodes.length) el.append(foot);
  return el;
}
