/**
 * People: the seats this seat shares a channel with (`GET /presence`, which also lists the caller),
 * with their presence state and a Message control that opens the direct message with them; and a
 * field to message any seat by id. The first message of a new direct message creates it (`send_dm`).
 */
import { button, h, replaceChildren } from './dom.js';
import type { PresenceRow } from './hub-types.js';

export class PeopleList {
  readonly element: HTMLElement;
  private readonly list: HTMLElement;
  private readonly seatInput: HTMLInputElement;

  constructor(private readonly onMessage: (peer: string) => void) {
    this.list = h('ul', { testid: 'people-list', class: 'tp-rail__list' });
    this.seatInput = h('input', { testid: 'dm-seat-input', class: 'tp-input tp-input--small', attrs: { type: 'text', placeholder: 'seat id', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Seat id to message' } });
    const form = h('form', { testid: 'dm-seat-form', class: 'tp-rail__form', on: { submit: (event) => { event.preventDefault(); this.submit(); } } },
      h('div', { class: 'tp-rail__inline' }, this.seatInput,
        h('button', { testid: 'dm-seat-submit', class: 'tp-button', attrs: { type: 'submit' } }, 'Message')));
    this.element = h('section', { testid: 'people', class: 'tp-rail__section' },
      h('h2', { class: 'tp-rail__heading' }, 'People'), this.list, form);
  }

  render(rows: PresenceRow[], seat: string | null): void {
    const others = rows.filter((r) => r.agent_id && r.agent_id !== seat).sort((a, b) => a.agent_id.localeCompare(b.agent_id));
    replaceChildren(this.list, ...(others.length ? others.map((row) => h('li', {
      testid: 'person-row',
      class: 'tp-rail__item tp-person',
      data: { agent: row.agent_id, state: row.state },
    },
    h('span', { class: `tp-presence tp-presence--${row.state}`, attrs: { title: row.state, 'aria-label': row.state } }),
    h('span', { class: 'tp-rail__name tp-person__name' }, row.agent_id),
    button('Message', 'dm-start', () => this.onMessage(row.agent_id), { class: 'tp-button tp-button--small tp-button--quiet', attrs: { title: `Direct message ${row.agent_id}` } })))
      : [h('li', { class: 'tp-empty' }, 'Nobody else yet.')]));
  }

  private submit(): void {
    const peer = this.seatInput.value.trim();
    if (!peer) return;
    this.seatInput.value = '';
    this.onMessage(peer);
  }
}
