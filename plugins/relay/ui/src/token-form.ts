/**
 * The sign-in form: the relay token is pasted once and kept in this tab (see token-store). A
 * refusal of the token (401) comes back here with the relay's sentence.
 */
import { el, replaceChildren } from './dom.js';

export function tokenForm(onToken: (token: string) => void, refusal: string | null): HTMLElement {
  const input = el('input', {
    id: 'relay-token', name: 'relay-token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true,
    class: 'rp-input rp-input-wide', 'data-testid': 'token-input', 'aria-describedby': 'relay-token-help relay-token-error',
  });
  const error = el('p', { id: 'relay-token-error', class: 'rp-error', role: 'alert', 'data-testid': 'token-error', hidden: !refusal }, refusal ?? '');
  const form = el('form', { class: 'rp-token-form', 'data-testid': 'token-form', 'aria-labelledby': 'token-title' },
    el('h2', { id: 'token-title' }, 'Relay token'),
    el('p', { id: 'relay-token-help', class: 'rp-muted' },
      'Paste the relay token (the RELAY_TOKEN variable, or the file the relay logged at start, by default ',
      el('code', {}, '<data>/plugins/relay/relay-token'),
      '). It stays in this browser tab only and is sent only to this relay.'),
    el('div', { class: 'rp-field' }, el('label', { for: 'relay-token' }, 'Token'), input),
    el('div', { class: 'rp-form-actions' }, el('button', { type: 'submit', class: 'rp-button', 'data-testid': 'token-submit' }, 'Show status')),
    error,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) {
      replaceChildren(error, 'Paste the token first.');
      error.hidden = false;
      input.focus();
      return;
    }
    onToken(token);
  });
  return form;
}
