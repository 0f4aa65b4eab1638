/**
 * The accounts panel: one card per upstream account with its usage windows (label, used and
 * remaining percent as a meter, reset time), its hold (kind, time left, last error) and whether it
 * serves the next request. Hold countdowns tick from `data-hold-until` (see `tickHolds`).
 */
import { el } from './dom.js';
import { duration, percent, when } from './format.js';
import type { AccountView, WindowView } from './shapes.js';

const HOLD_KINDS: Record<string, string> = {
  quota: 'quota limit reached',
  auth: 'upstream refused the key',
  transient: 'upstream failing',
};

function windowRow(window: WindowView, slug: string): HTMLElement {
  const used = window.usedPercent;
  const summary = used === null ? 'usage unknown' : `${percent(used)} used · ${percent(window.remainingPercent ?? Math.max(0, 100 - used))} left`;
  const reset = window.resetAtIso
    ? `resets ${window.resetAfterSeconds !== null ? `in ${duration(window.resetAfterSeconds)} ` : ''}(${when(window.resetAtIso)})`
    : window.resetAfterSeconds !== null ? `resets in ${duration(window.resetAfterSeconds)}` : '';
  const id = `w-${slug}-${window.label}`.replace(/[^A-Za-z0-9_-]/g, '_');
  return el('li', { class: 'rp-window', 'data-testid': 'usage-window', 'data-window': window.label },
    el('span', { class: 'rp-window-label', id }, window.label),
    used === null ? el('span', { class: 'rp-meter-empty' }) : el('meter', {
      class: 'rp-meter', min: 0, max: 100, low: 70, high: 90, optimum: 0, value: Math.max(0, Math.min(100, used)),
      'aria-labelledby': id, 'aria-valuetext': summary,
    }),
    el('span', { class: 'rp-window-numbers', 'data-testid': 'usage-window-numbers' }, summary),
    reset ? el('span', { class: 'rp-window-reset' }, reset) : null,
  );
}

function holdBlock(account: AccountView, readAt: number): HTMLElement | null {
  if (!account.hold) return null;
  const { kind, remainingSeconds, lastError } = account.hold;
  return el('div', { class: 'rp-hold', 'data-testid': 'account-hold', 'data-kind': kind },
    el('p', { class: 'rp-hold-title' },
      el('strong', {}, `On hold: ${kind}`),
      HOLD_KINDS[kind] ? ` (${HOLD_KINDS[kind]})` : '',
      ' · ',
      el('span', { 'data-testid': 'hold-remaining', 'data-hold-until': readAt + remainingSeconds * 1000 }, `${duration(remainingSeconds)} left`),
    ),
    lastError ? el('p', { class: 'rp-hold-error', 'data-testid': 'hold-last-error' }, `Last error: ${lastError}`) : null,
  );
}

export function accountCard(account: AccountView, servesNext: boolean, readAt: number): HTMLElement {
  const headingId = `acct-${account.slug}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const state = account.hold ? el('span', { class: 'rp-badge rp-badge-warn' }, 'on hold')
    : account.ready === false ? el('span', { class: 'rp-badge rp-badge-danger' }, 'not ready')
      : el('span', { class: 'rp-badge rp-badge-ok' }, 'available');
  return el('article', { class: `rp-account${servesNext ? ' rp-account-next' : ''}${account.hold ? ' rp-account-held' : ''}`, 'data-testid': 'account', 'data-slug': account.slug, 'aria-labelledby': headingId },
    el('header', { class: 'rp-account-head' },
      el('h3', { id: headingId, class: 'rp-account-slug' }, account.slug),
      state,
      servesNext ? el('span', { class: 'rp-badge rp-badge-accent', 'data-testid': 'serves-next' }, 'serves next') : null,
    ),
    account.email || account.plan ? el('p', { class: 'rp-muted' }, [account.email, account.plan && `plan ${account.plan}`].filter(Boolean).join(' · ')) : null,
    holdBlock(account, readAt),
    account.windows.length
      ? el('ul', { class: 'rp-windows', 'aria-label': `Usage windows of ${account.slug}` }, ...account.windows.map((w) => windowRow(w, account.slug)))
      : el('p', { class: 'rp-muted', 'data-testid': 'no-usage' }, account.usageError ? `Usage report failed: ${account.usageError}` : 'This account reports no usage windows.'),
    account.limitReached ? el('p', { class: 'rp-note-warn' }, `Limit reached: ${account.limitReached}`) : null,
    !account.hold && account.lastError ? el('p', { class: 'rp-muted' }, `Last error: ${account.lastError}`) : null,
  );
}

/** Rewrites every hold countdown under `root` from its deadline. */
export function tickHolds(root: ParentNode, now: number): void {
  for (const span of root.querySelectorAll<HTMLElement>('[data-hold-until]')) {
    const left = (Number(span.dataset.holdUntil) - now) / 1000;
    span.textContent = left > 0 ? `${duration(left)} left` : 'ending (refresh to confirm)';
  }
}
