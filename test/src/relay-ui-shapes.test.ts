/**
 * How the status page reads the relay's answers (`plugins/relay/ui/src/shapes.ts`, compiled for the
 * browser and DOM-free): only reported windows, longest first whatever the slot (reference §8 items
 * 11 and 13), the single-account answer folded onto the only account, per-account usage failures,
 * hold countdowns, and which account serves next under each strategy.
 */
import { expect } from 'chai';
import { accountViews, nextPick, windowsOf, type AccountView, type RelayStatus, type SubscriptionAnswer } from '../../plugins/relay/ui/dist/shapes.js';

const window = (seconds: number, used: number, label: string) => ({ used_percent: used, remaining_percent: 100 - used, window_seconds: seconds, window_label: label, reset_after_seconds: 60, reset_at: 1_790_000_000, reset_at_iso: '2026-09-21T12:53:20Z' });
const report = (primary: object | null, secondary: object | null = null) => ({ object: 'subscription_status' as const, rate_limits: { default: { primary_window: primary, secondary_window: secondary } } });
const status = (accounts: object[], balance?: string): RelayStatus => ({ requests_total: 0, providers: { hosted: { enabled: true, accounts: accounts as never, ...(balance ? { balance } : {}) } } });

function view(slug: string, weekly: number | null, fiveHours: number | null, held = false): AccountView {
  const windows = [
    ...(weekly === null ? [] : [{ label: 'weekly', usedPercent: weekly, remainingPercent: 100 - weekly, resetAfterSeconds: null, resetAtIso: null, windowSeconds: 604_800 }]),
    ...(fiveHours === null ? [] : [{ label: '5h', usedPercent: fiveHours, remainingPercent: 100 - fiveHours, resetAfterSeconds: null, resetAtIso: null, windowSeconds: 18_000 }]),
  ];
  return { slug, email: null, plan: null, ready: true, hold: held ? { kind: 'quota', remainingSeconds: 10, lastError: null } : null, lastError: null, windows, usageError: null, limitReached: null };
}

describe('relay status page: reading the answers', () => {
  it('shows only the windows a report has (no synthesised 5h row for a weekly-only plan)', () => {
    const windows = windowsOf(report(window(604_800, 12, 'weekly')));
    expect(windows.map((w) => w.label)).to.deep.equal(['weekly']);
    expect(windowsOf(report(null))).to.deep.equal([]);
    expect(windowsOf({ rate_limits: null })).to.deep.equal([]);
  });

  it('orders windows by duration, longest first, whatever slot the upstream used', () => {
    const windows = windowsOf(report(window(18_000, 80, '5h'), window(604_800, 30, 'weekly')));
    expect(windows.map((w) => [w.label, w.usedPercent, w.remainingPercent])).to.deep.equal([['weekly', 30, 70], ['5h', 80, 20]]);
  });

  it('names extra limits after the limit, and treats wrong types as absent', () => {
    const windows = windowsOf({ rate_limits: { default: null, additional: [{ limit_name: 'big-model', rate_limit: { primary_window: window(604_800, 5, 'weekly') } }] } });
    expect(windows.map((w) => w.label)).to.deep.equal(['big-model · weekly']);
    const odd = windowsOf(report({ used_percent: true, window_seconds: '600', window_label: 7 }));
    expect(odd).to.have.length(1);
    expect(odd[0]!.usedPercent).to.equal(null);
    expect(odd[0]!.label).to.equal('window');
  });

  it('folds a single-account answer onto the only account; a list entry with an error is that account\'s usage error', () => {
    const one = accountViews(status([{ slug: 'ana', limited: false }]), report(window(604_800, 40, 'weekly')));
    expect(one.map((a) => [a.slug, a.windows.map((w) => w.usedPercent)])).to.deep.equal([['ana', [40]]]);
    const list: SubscriptionAnswer = { object: 'subscription_status_list', accounts: [{ slug: 'ana', status: report(window(604_800, 40, 'weekly')) }, { slug: 'bo', error: 'status 401: bad key' }] };
    const two = accountViews(status([{ slug: 'ana' }, { slug: 'bo' }]), list);
    expect(two[1]!.usageError).to.equal('status 401: bad key');
    expect(two[1]!.windows).to.deep.equal([]);
  });

  it('uses the status\'s cached windows when the usage route did not answer', () => {
    const views = accountViews(status([{ slug: 'ana', usage_windows: [window(18_000, 10, '5h'), window(604_800, 60, 'weekly')] }]), null);
    expect(views[0]!.windows.map((w) => w.label)).to.deep.equal(['weekly', '5h']);
  });

  it('reads a hold with its kind, last error and the time left counted from when the status was read', () => {
    const [held] = accountViews(status([{ slug: 'bo', limited: true, limited_for_seconds: 100, limited_kind: 'quota', last_error: 'status 429: slow down' }]), null, 30);
    expect(held!.hold).to.deep.equal({ kind: 'quota', remainingSeconds: 70, lastError: 'status 429: slow down' });
    const [free] = accountViews(status([{ slug: 'ana', limited: false }]), null);
    expect(free!.hold).to.equal(null);
  });

  it('serves next: balanced takes the lowest whole percent of the longest window (not the 5h one), never an account on hold', () => {
    const ana = view('ana', 30.9, 95);
    const bo = view('bo', 40, 0);
    expect(nextPick([ana, bo], 'balanced')?.slug).to.equal('ana');
    expect(nextPick([view('ana', 10, 0, true), bo], 'balanced')?.slug).to.equal('bo');
    // 30.9 and 30.2 truncate to the same 30: a tie the pool breaks by least recent use, which the page cannot see.
    expect(nextPick([ana, view('bo', 30.2, 0)], 'balanced')).to.equal(null);
    expect(nextPick([view('ana', null, null), view('bo', null, null)], 'balanced')).to.equal(null);
  });

  it('serves next: ordered is the first account not on hold; round robin cannot be told; none when all are held', () => {
    expect(nextPick([view('ana', 90, 0, true), view('bo', 99, 0), view('cy', 1, 0)], 'ordered')?.slug).to.equal('bo');
    expect(nextPick([view('ana', 90, 0), view('bo', 1, 0)], 'round_robin')).to.equal(null);
    expect(nextPick([view('ana', 90, 0, true), view('bo', 1, 0, true)], 'balanced')).to.equal(null);
    expect(nextPick([view('ana', 90, 0)], null)?.slug, 'a single account serves').to.equal('ana');
  });
});
