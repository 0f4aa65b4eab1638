/** The sign-in form: a gateway token is pasted once and kept in this tab (see token-store). */
import { el, replaceChildren } from './dom.js';

export function tokenForm(onToken: (token: string) => void, refusal: string | null): HTMLElement {
  const input = el('input', {
    id: 'voice-token', name: 'voice-token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true,
    class: 'vp-input', 'data-testid': 'token-input', 'aria-describedby': 'voice-token-help voice-token-error',
  });
  const error = el('p', { id: 'voice-token-error', class: 'vp-error', role: 'alert', 'data-testid': 'token-error', hidden: !refusal }, refusal ?? '');
  const form = el('form', { class: 'vp-card vp-token-form', 'data-testid': 'token-form', 'aria-labelledby': 'token-title' },
    el('h2', { id: 'token-title' }, 'Gateway token'),
    el('p', { id: 'voice-token-help', class: 'vp-muted' },
      'Paste a gateway token (an account token, or the admin token in ',
      el('code', {}, '<data>/auth/admin.token'),
      '). It stays in this browser tab only and is sent only to this server.'),
    el('label', { for: 'voice-token' }, 'Token'),
    input,
    el('div', { class: 'vp-actions' }, el('button', { type: 'submit', class: 'vp-button', 'data-testid': 'token-submit' }, 'Continue')),
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
