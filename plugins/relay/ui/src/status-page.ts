/**
 * The status page: asks for the relay token once, then shows the accounts with their windows and
 * holds, the recent notable traffic and the logging policy, read again every `POLL_MS` while the tab
 * is visible. Each panel shows its own failure (a route this relay lacks, a 429) without hiding the
 * others; a refused token (401) forgets it and asks again.
 */
import { accountCard, tickHolds } from './accounts-view.js';
import { el, replaceChildren } from './dom.js';
import { duration } from './format.js';
import { loggingForm, loggingSummary } from './logging-view.js';
import { RelayApi, RelayApiError } from './relay-api.js';
import { accountViews, nextPick, type LoggingStatus, type RelayStatus, type SubscriptionAnswer, type TrafficList } from './shapes.js';
import { forgetToken, readToken, saveToken } from './token-store.js';
import { tokenForm } from './token-form.js';
import { trafficList } from './traffic-view.js';

const POLL_MS = 10_000;
/** The logging route is an ordinary (counted) request: read it on every sixth poll, at start, and on Reload. */
const LOGGING_EVERY = 6;
const TRAFFIC_LIMIT = 50;

const BALANCE_LABELS: Record<string, string> = {
  balanced: 'balanced: the account with the lowest use of its longest window',
  round_robin: 'round robin: the account used least recently',
  ordered: 'ordered: the first account not on hold',
};

function panel(id: string, title: string, ...rest: HTMLElement[]): { section: HTMLElement; body: HTMLElement } {
  const body = el('div', { class: 'rp-panel-body', 'data-testid': `${id}-body` });
  const section = el('section', { class: `rp-panel rp-panel-${id}`, 'aria-labelledby': `${id}-title`, 'data-testid': `${id}-panel` },
    el('h2', { id: `${id}-title` }, title), ...rest, body);
  return { section, body };
}

const failure = (err: unknown): HTMLElement => el('p', { class: 'rp-error', role: 'alert', 'data-testid': 'panel-error' },
  err instanceof RelayApiError && err.status === 404 ? `This relay does not serve this yet (${err.message})` : err instanceof Error ? err.message : String(err));

export class StatusPage {
  private readonly api: RelayApi;
  private readonly main = el('main', { id: 'main', class: 'rp-main', tabindex: -1 });
  private readonly announcer = el('p', { class: 'rp-visually-hidden', role: 'status', 'aria-live': 'polite', 'data-testid': 'announcer' });
  private readonly summary = el('dl', { class: 'rp-summary', 'data-testid': 'summary' });
  private readonly actionMessage = el('p', { class: 'rp-action-message', 'data-testid': 'action-message', role: 'status', 'aria-live': 'polite' });
  private readonly refreshButton = el('button', { type: 'button', class: 'rp-button', 'data-testid': 'refresh-accounts' }, 'Refresh accounts');
  private readonly reloadButton = el('button', { type: 'button', class: 'rp-button rp-button-quiet', 'data-testid': 'reload' }, 'Reload');
  private readonly forgetButton = el('button', { type: 'button', class: 'rp-button rp-button-quiet', 'data-testid': 'forget-token' }, 'Forget token');
  private readonly accounts = panel('accounts', 'Accounts');
  private readonly traffic = panel('traffic', 'Recent traffic');
  private readonly logging = panel('logging', 'Traffic logs');
  private readonly form = loggingForm(async (policy) => {
    const saved = await this.api.saveLogging(policy);
    replaceChildren(this.logging.body, loggingSummary(saved));
    return saved;
  });
  private readonly toolbar = el('div', { class: 'rp-toolbar', hidden: true }, this.refreshButton, this.reloadButton, this.forgetButton);
  private timer: ReturnType<typeof setTimeout> | undefined;
  private loading: Promise<void> | null = null;
  private polls = 0;

  constructor(private readonly root: HTMLElement, apiBase: string) {
    this.api = new RelayApi(apiBase, readToken);
    this.logging.section.append(el('h3', { class: 'rp-subtitle' }, 'Change the policy'), this.form.element);
    this.root.replaceChildren(
      el('header', { class: 'rp-top' },
        el('div', { class: 'rp-top-title' }, el('h1', { id: 'page-title', tabindex: -1 }, 'Relay status'), this.toolbar),
        this.summary, this.actionMessage),
      this.main, this.announcer);
    this.refreshButton.addEventListener('click', () => void this.refreshAccounts());
    this.reloadButton.addEventListener('click', () => void this.load(true));
    this.forgetButton.addEventListener('click', () => this.signOut(null));
    document.addEventListener('visibilitychange', () => {
      if (!document.hidden && readToken()) void this.load();
    });
    setInterval(() => tickHolds(this.accounts.body, Date.now()), 1000);
  }

  start(): void {
    if (readToken()) this.showDashboard(false);
    else this.showTokenForm(null);
  }

  private showTokenForm(refusal: string | null): void {
    clearTimeout(this.timer);
    this.toolbar.hidden = true;
    this.summary.replaceChildren();
    this.actionMessage.textContent = '';
    this.main.replaceChildren(tokenForm((token) => {
      saveToken(token);
      this.showDashboard(true);
    }, refusal));
    this.main.querySelector<HTMLInputElement>('input')?.focus();
  }

  private showDashboard(focus: boolean): void {
    this.toolbar.hidden = false;
    this.main.replaceChildren(this.accounts.section, this.traffic.section, this.logging.section);
    for (const body of [this.accounts.body, this.traffic.body]) replaceChildren(body, el('p', { class: 'rp-muted' }, 'Loading…'));
    void this.load(true).then(() => {
      if (focus && readToken()) document.getElementById('page-title')?.focus();
    });
  }

  private signOut(refusal: string | null): void {
    forgetToken();
    this.showTokenForm(refusal);
    this.announcer.textContent = refusal ? 'The relay refused the token.' : 'Token forgotten.';
  }

  /** Reads everything once (the logging policy when `withLogging` or its turn); the next read is scheduled after this one ends. */
  load(withLogging = false): Promise<void> {
    this.loading ??= this.readAll(withLogging || this.polls++ % LOGGING_EVERY === 0).finally(() => {
      this.loading = null;
      clearTimeout(this.timer);
      if (readToken()) this.timer = setTimeout(() => (document.hidden ? undefined : void this.load()), POLL_MS);
    });
    return this.loading;
  }

  private async readAll(withLogging: boolean): Promise<void> {
    const [status, subscriptions, traffic, logging] = await Promise.allSettled([
      this.api.status(), this.api.subscriptions(), this.api.traffic(TRAFFIC_LIMIT), withLogging ? this.api.logging() : Promise.resolve(null),
    ]);
    const refused = [status, subscriptions, traffic, logging].find((r) => r.status === 'rejected' && r.reason instanceof RelayApiError && r.reason.status === 401);
    if (refused) return this.signOut((refused as PromiseRejectedResult).reason.message);
    if (!readToken()) return;
    this.renderAccounts(status, subscriptions);
    replaceChildren(this.traffic.body, traffic.status === 'fulfilled' ? trafficList(Array.isArray((traffic.value as TrafficList)?.data) ? traffic.value.data : []) : failure(traffic.reason));
    if (logging.status === 'rejected' || logging.value !== null) this.renderLogging(logging as PromiseSettledResult<LoggingStatus>);
  }

  private renderAccounts(status: PromiseSettledResult<RelayStatus>, subscriptions: PromiseSettledResult<SubscriptionAnswer>): void {
    const readAt = Date.now();
    const relay = status.status === 'fulfilled' ? status.value : null;
    const hosted = relay?.providers?.hosted;
    const views = accountViews(relay, subscriptions.status === 'fulfilled' ? subscriptions.value : null);
    const balance = typeof hosted?.balance === 'string' ? hosted.balance : null;
    const next = nextPick(views, balance);
    const held = views.filter((v) => v.hold);

    const facts: Array<[string, string, string]> = [];
    if (relay) facts.push(['Requests served', String(relay.requests_total ?? 0), 'requests-total']);
    if (views.length) {
      facts.push(['Serves next', next ? next.slug : held.length === views.length ? `none free (${views.length} on hold)` : 'decided per request', 'serves-next-summary']);
      const longest = next?.windows.find((w) => !w.label.includes(' · ') && w.remainingPercent !== null);
      if (longest) facts.push([`Left on ${next!.slug}`, `${Math.round(longest.remainingPercent!)}% of ${longest.label}${longest.resetAfterSeconds !== null ? `, resets in ${duration(longest.resetAfterSeconds)}` : ''}`, 'quota-left']);
      facts.push(['On hold', `${held.length} of ${views.length}`, 'held-count']);
    }
    if (balance) facts.push(['Strategy', balance.replace('_', ' '), 'balance']);
    this.summary.replaceChildren(...facts.flatMap(([term, value, testid]) => [el('dt', {}, term), el('dd', { 'data-testid': testid }, value)]));

    const problems: HTMLElement[] = [];
    if (status.status === 'rejected') problems.push(failure(status.reason));
    if (subscriptions.status === 'rejected' && views.length) problems.push(el('p', { class: 'rp-note-warn' }, `Usage windows unavailable: ${subscriptions.reason instanceof Error ? subscriptions.reason.message : String(subscriptions.reason)}`));
    const strategy = balance ? el('p', { class: 'rp-muted', 'data-testid': 'balance-note' }, `Strategy ${BALANCE_LABELS[balance] ?? balance}.`) : null;
    const cli = relay?.providers?.cli;
    const cliNote = cli ? el('p', { class: 'rp-muted', 'data-testid': 'cli-note' }, cli.enabled === false ? 'Local command-line models: disabled.' : `Local command-line models: ${cli.ready_for_requests ? 'ready' : 'not ready'}${Array.isArray(cli.models) && cli.models.length ? ` (${cli.models.join(', ')})` : ''}.`) : null;
    const cards = views.length
      ? el('div', { class: 'rp-accounts' }, ...views.map((v) => accountCard(v, next?.slug === v.slug && views.length > 1, readAt)))
      : relay ? el('p', { class: 'rp-muted', 'data-testid': 'no-accounts' }, hosted?.enabled === false ? 'Hosted accounts are disabled on this relay.' : 'No upstream account is configured.') : null;
    replaceChildren(this.accounts.body, ...problems, strategy, cards, cliNote);
    // Said only when it changes: a screen reader should not hear the same line every poll.
    const news = `${views.length} account${views.length === 1 ? '' : 's'}, ${held.length} on hold${next ? `, ${next.slug} serves next` : ''}.`;
    if (this.announcer.textContent !== news) this.announcer.textContent = news;
  }

  private renderLogging(logging: PromiseSettledResult<LoggingStatus>): void {
    if (logging.status === 'fulfilled' && logging.value?.policy) {
      replaceChildren(this.logging.body, loggingSummary(logging.value));
      this.form.show(logging.value);
    } else {
      replaceChildren(this.logging.body, failure(logging.status === 'rejected' ? logging.reason : new Error('The relay answered no policy.')));
    }
  }

  private async refreshAccounts(): Promise<void> {
    this.refreshButton.disabled = true;
    this.actionMessage.classList.remove('rp-error');
    this.actionMessage.textContent = 'Asking every account for a fresh usage report…';
    try {
      await this.api.refreshAccounts();
      this.actionMessage.textContent = `Accounts refreshed at ${new Date().toLocaleTimeString()}.`;
    } catch (err) {
      if (err instanceof RelayApiError && err.status === 401) return this.signOut(err.message);
      this.actionMessage.classList.add('rp-error');
      this.actionMessage.textContent = `Refresh failed: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.refreshButton.disabled = false;
    }
    // A read begun before the refresh answered shows the old state: wait for it, then read again.
    await this.loading;
    await this.load();
  }
}
