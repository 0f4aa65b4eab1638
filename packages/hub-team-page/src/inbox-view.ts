/**
 * The inbox: what arrived for this seat across its channels (`GET /inbox`). Acknowledging moves
 * the channel's cursor and happens only when the person presses Ack, never on render.
 */
import { button, formatTime, h, replaceChildren } from './dom.js';
import type { Envelope } from './hub-types.js';
import type { PageServices } from './services.js';

export class InboxView {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private count = 0;

  constructor(private readonly services: PageServices) {
    this.list = h('ul', { testid: 'inbox-list', class: 'tp-list' });
    this.element = h('section', { testid: 'inbox-view', class: 'tp-panel' },
      h('div', { class: 'tp-panel__bar' }, h('h2', { class: 'tp-panel__title' }, 'Inbox'), button('Refresh', 'inbox-refresh', () => void this.load())),
      this.list);
  }

  get unread(): number {
    return this.count;
  }

  async load(): Promise<number | undefined> {
    const rows = await this.services.attempt('reading the inbox', () => this.services.hub.inbox());
    if (!rows) return undefined;
    this.count = rows.length;
    replaceChildren(this.list, ...(rows.length ? rows.map((row) => this.row(row)) : [h('li', { testid: 'inbox-empty', class: 'tp-empty' }, 'Nothing waiting.')]));
    return rows.length;
  }

  private row(env: Envelope): HTMLElement {
    const classes = ['tp-list__row'];
    if (env.retracted) classes.push('tp-list__row--retracted');
    if (env.critical) classes.push('tp-list__row--critical');
    return h('li', { testid: 'inbox-row', class: classes.join(' '), data: { channel: env.channel, seq: env.seq, id: env.id } },
      h('span', { class: 'tp-list__where' }, `${env.channel} #${env.seq}`),
      h('span', { class: 'tp-list__who' }, env.sender),
      h('span', { class: `tp-status tp-status--${env.status}` }, env.status),
      h('span', { class: 'tp-list__title' }, env.title || (env.body ?? '').slice(0, 140)),
      h('time', { class: 'tp-list__time' }, formatTime(env.created_at)),
      button('Open', 'inbox-open', () => this.services.open(env.channel, env.seq), { class: 'tp-button tp-button--small' }),
      button('Ack', 'inbox-ack', () => void this.ack(env), { class: 'tp-button tp-button--small' }),
    );
  }

  private async ack(env: Envelope): Promise<void> {
    const done = await this.services.attempt(`acknowledging ${env.channel} #${env.seq}`, () => this.services.hub.ack(env.channel, env.seq));
    if (done !== undefined) await this.load();
  }
}
