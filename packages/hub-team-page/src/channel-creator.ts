/**
 * Creating a room (`create_channel(name, is_private)`): a name and a private switch, private by
 * default as on the hub. The hub decides the name rules and answers a refusal verbatim.
 */
import { h } from './dom.js';

export class ChannelCreator {
  readonly element: HTMLFormElement;
  private readonly name: HTMLInputElement;
  private readonly isPrivate: HTMLInputElement;
  private readonly submit: HTMLButtonElement;

  constructor(private readonly onCreate: (name: string, isPrivate: boolean) => Promise<boolean>) {
    this.name = h('input', { testid: 'channel-create-name', class: 'tp-input tp-input--small', attrs: { type: 'text', placeholder: 'channel-name', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'New channel name' } });
    this.isPrivate = h('input', { testid: 'channel-create-private', class: 'tp-checkbox', attrs: { type: 'checkbox', checked: true } });
    this.submit = h('button', { testid: 'channel-create-submit', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Create');
    this.element = h('form', { testid: 'channel-create', class: 'tp-rail__form tp-rail__form--stacked', on: { submit: (event) => { event.preventDefault(); void this.send(); } } },
      h('h2', { class: 'tp-rail__heading' }, 'New channel'),
      h('div', { class: 'tp-rail__inline' }, this.name, this.submit),
      h('label', { class: 'tp-check' }, this.isPrivate, h('span', {}, 'private (invite only)')));
  }

  private async send(): Promise<void> {
    const name = this.name.value.trim();
    if (!name) return;
    this.submit.disabled = true;
    try {
      if (await this.onCreate(name, this.isPrivate.checked)) this.name.value = '';
    } finally {
      this.submit.disabled = false;
    }
  }
}
