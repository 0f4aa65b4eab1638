/**
 * Sign-in by pasting a seat key. The key goes to the hub client and nowhere else: never
 * localStorage, sessionStorage, cookies or the URL. The field is emptied once it is handed over.
 */
import { field, h } from './dom.js';

export class SignInView {
  readonly element: HTMLFormElement;
  private readonly key: HTMLInputElement;
  private readonly submit: HTMLButtonElement;

  constructor(private readonly onSignIn: (key: string) => Promise<void>) {
    this.key = h('input', {
      testid: 'seat-key-input',
      class: 'tp-input',
      attrs: { type: 'password', autocomplete: 'off', spellcheck: 'false', placeholder: 'agora_…', required: true },
    });
    this.submit = h('button', { testid: 'sign-in-button', class: 'tp-button tp-button--primary', attrs: { type: 'submit' } }, 'Sign in');
    this.element = h('form', { testid: 'sign-in', class: 'tp-sign-in', on: { submit: (event) => { event.preventDefault(); void this.send(); } } },
      h('h2', { class: 'tp-sign-in__title' }, 'Sign in with your seat key'),
      h('p', { class: 'tp-sign-in__note' }, 'The key stays in this tab’s memory only; reloading the page forgets it.'),
      field('Seat key', this.key),
      this.submit,
    );
  }

  private async send(): Promise<void> {
    const key = this.key.value.trim();
    if (!key) return;
    this.key.value = '';
    this.submit.disabled = true;
    try {
      await this.onSignIn(key);
    } finally {
      this.submit.disabled = false;
    }
  }

  focus(): void {
    this.key.focus();
  }
}
