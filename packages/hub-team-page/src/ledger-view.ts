/**
 * The selected channel's verbatim ledger (`ledger(c)`): every turn in seq order with its hash, and
 * the verdict of the page's own verification — the client recomputes the chain and ignores what the
 * hub says about it: ok, broken at a seq, or a head that does not match the computed one. Retracted
 * turns are linked by their stored hash (their original bytes stay hashed), not recomputed.
 */
import { button, formatTime, h, replaceChildren } from './dom.js';
import type { LedgerTurn, LedgerVerification, VerifiedLedger } from './hub-types.js';
import type { PageServices } from './services.js';

export type LedgerVerdict = 'ok' | 'broken' | 'head-mismatch';

export function verdictOf(v: LedgerVerification): LedgerVerdict {
  if (v.broken_at !== null && v.broken_at !== undefined) return 'broken';
  if (v.head_mismatch) return 'head-mismatch';
  return v.ok ? 'ok' : 'broken';
}

function short(hash: string | null | undefined): string {
  return hash ? `${hash.slice(0, 12)}…` : '—';
}

export function verdictText(ledger: Pick<VerifiedLedger, 'head' | 'verification'>): string {
  const v = ledger.verification;
  const counts = `${v.hashed} recomputed, ${v.redacted} retracted (linked by stored hash), ${v.legacy} legacy`;
  switch (verdictOf(v)) {
    case 'ok': return `Verified by this page: the chain holds (${counts}); head ${short(v.computed_head)}`;
    case 'broken': return `Broken at seq ${v.broken_at ?? '?'}: that turn does not hash to what the hub served (${counts}).`;
    case 'head-mismatch': return `Head mismatch: the hub’s head ${short(ledger.head)} is not the computed head ${short(v.computed_head)} (${counts}).`;
  }
}

export class LedgerView {
  readonly element: HTMLElement;
  private readonly verdict: HTMLElement;
  private readonly list: HTMLElement;
  private channel: string | null = null;
  private loads = 0;

  constructor(private readonly services: PageServices) {
    this.verdict = h('p', { testid: 'ledger-verdict', class: 'tp-ledger__verdict', attrs: { hidden: true } });
    this.list = h('ol', { testid: 'ledger-turns', class: 'tp-list tp-ledger__turns' });
    this.element = h('section', { testid: 'ledger-view', class: 'tp-panel' },
      h('div', { class: 'tp-panel__bar' },
        h('h2', { class: 'tp-panel__title' }, 'Ledger'),
        button('Verify again', 'ledger-refresh', () => void this.load())),
      h('p', { class: 'tp-panel__note' }, 'The hash chain is recomputed here, in your browser; the hub’s own verdict is not trusted.'),
      this.verdict, this.list);
  }

  setChannel(channel: string | null): void {
    if (channel === this.channel) return;
    this.channel = channel;
    this.verdict.hidden = true;
    delete this.verdict.dataset.verdict;
    replaceChildren(this.list);
  }

  async load(): Promise<void> {
    const channel = this.channel;
    if (!channel) {
      replaceChildren(this.list, h('li', { class: 'tp-empty' }, 'Select a channel first.'));
      return;
    }
    const ticket = ++this.loads;
    this.verdict.hidden = false;
    this.verdict.dataset.verdict = 'pending';
    this.verdict.textContent = `Reading and verifying the ledger of ${channel}…`;
    const ledger = await this.services.attempt(`verifying the ledger of ${channel}`, () => this.services.hub.ledger(channel));
    if (ticket !== this.loads || channel !== this.channel) return;
    if (!ledger) {
      this.verdict.hidden = true;
      delete this.verdict.dataset.verdict;
      return;
    }
    const v = ledger.verification;
    const verdict = verdictOf(v);
    this.verdict.dataset.verdict = verdict;
    this.verdict.dataset.brokenAt = v.broken_at === null || v.broken_at === undefined ? '' : String(v.broken_at);
    this.verdict.className = `tp-ledger__verdict tp-ledger__verdict--${verdict}`;
    this.verdict.textContent = verdictText(ledger);
    const turns = Array.isArray(ledger.turns) ? ledger.turns : [];
    replaceChildren(this.list, ...(turns.length ? turns.map((t) => this.turn(t, v.broken_at)) : [h('li', { class: 'tp-empty' }, 'No turns.')]));
  }

  private turn(t: LedgerTurn, brokenAt: number | null): HTMLElement {
    const broken = brokenAt !== null && t.seq === brokenAt;
    const classes = ['tp-list__row', 'tp-ledger__turn'];
    if (t.retracted) classes.push('tp-list__row--retracted');
    if (broken) classes.push('tp-ledger__turn--broken');
    return h('li', { testid: 'ledger-turn', class: classes.join(' '), data: { seq: t.seq, retracted: t.retracted ? 'true' : 'false', broken: broken ? 'true' : null, legacy: t.hash ? null : 'true' } },
      h('span', { class: 'tp-list__where' }, `#${t.seq}`),
      h('span', { class: 'tp-list__who' }, t.sender),
      h('span', { class: 'tp-chip' }, t.kind),
      h('span', { class: 'tp-list__title' }, t.title || (t.body ?? '').slice(0, 140)),
      h('code', { testid: 'ledger-hash', class: 'tp-ledger__hash', attrs: { title: t.hash ?? 'legacy turn: no hash' } }, short(t.hash)),
      h('time', { class: 'tp-list__time' }, formatTime(t.created_at)));
  }
}
