/**
 * The relay pool's choice of account (reference §3.3), its usage probes and evidence-gated release
 * (§3.6), warm start, and the window token tally (§3.10), against a real `RelayUpstream`.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAccounts, slugOf } from '@keel/plugin-relay';
import { RelayUpstream, usageReport } from './helpers/relay-upstream.js';
import { callAccount, hostedSettings, makePool, poolRequest, type HostedSettings, type PoolHarness } from './helpers/relay-pool.js';
import { until } from './helpers/until.js';

type Status = { slug: string; limited: boolean; limited_for_seconds?: number; limited_kind?: string; last_error?: string; window_tokens?: Record<string, unknown>; usage_windows: Array<Record<string, unknown>> };

const quota = (resets: number) => ({ status: 429, error: { message: 'You have hit your usage limit.', type: 'usage_limit_reached', code: 'usage_limit_reached', resets_in_seconds: resets } });
const WEEK = 604_800;
const FIVE_HOURS = 18_000;

describe('relay pool: selection, probes and release', () => {
  const upstream = new RelayUpstream();
  let harness: PoolHarness | null = null;
  const keys = ['key-a', 'key-b', 'key-c'];

  before(async () => {
    await upstream.start();
  });
  after(() => upstream.stop());
  beforeEach(() => {
    for (const key of keys) upstream.account(key);
    upstream.requests.length = 0;
    upstream.usageDelayMs.clear();
    upstream.usageCalls.clear();
  });
  afterEach(() => {
    harness?.close();
    harness = null;
  });

  function pool(count: number, overrides: Partial<HostedSettings> = {}, dataDir?: string) {
    const accounts = keys.slice(0, count).map((key) => ({ slug: key.replace('key-', 'acct-'), baseUrl: upstream.url, apiKey: key, usagePath: '/usage' }));
    harness = makePool(hostedSettings(accounts, overrides), dataDir);
    return harness;
  }
  const status = (h: PoolHarness, slug: string) => (h.pool.accountStatuses() as Status[]).find((s) => s.slug === slug)!;
  const serve = (h: PoolHarness, model = 'gpt-test', conversationId?: string) => h.pool.run(poolRequest(model, conversationId ? { conversationId } : {}), (account) => callAccount(h.pool, account, model));

  describe('slugs and accounts', () => {
    it('a configured slug wins; else the email local part (or host) and 10 hex of sha256', () => {
      expect(slugOf({ slug: 'mine', baseUrl: 'http://x/v1' })).to.equal('mine');
      expect(slugOf({ email: 'Ann.Lee@example.com', baseUrl: 'http://x/v1' })).to.match(/^ann\.lee-[0-9a-f]{10}$/);
      expect(slugOf({ baseUrl: 'https://api.example.com/v1' })).to.match(/^api\.example\.com-[0-9a-f]{10}$/);
      expect(slugOf({ baseUrl: 'https://api.example.com/v1' })).to.not.equal(slugOf({ baseUrl: 'https://api.example.com/v2' }));
    });

    it('an entry without a key is skipped, the key env variable is read, a slug taken twice keeps the first', () => {
      const { accounts, skipped } = loadAccounts([
        { slug: 'a', baseUrl: 'http://x/v1', apiKeyEnv: 'RELAY_TEST_KEY' },
        { slug: 'b', baseUrl: 'http://x/v1', apiKeyEnv: 'RELAY_TEST_UNSET' },
        { slug: 'a', baseUrl: 'http://y/v1', apiKey: 'k' },
      ], { RELAY_TEST_KEY: 'from-env' });
      expect(accounts.map((a) => [a.slug, a.apiKey, a.baseUrl])).to.deep.equal([['a', 'from-env', 'http://x/v1']]);
      expect(skipped).to.have.length(2);
      expect(skipped[0]).to.match(/b has no key/);
    });

    it('each account has its own keep-alive agent for the hosted lane', () => {
      const h = pool(2);
      const [a, b] = h.pool.accounts;
      const ta = h.pool.upstreamOf(a!);
      expect(ta).to.include({ baseUrl: upstream.url, apiKey: 'key-a' });
      expect((ta.agent as unknown as { keepAlive: boolean }).keepAlive).to.equal(true);
      expect(h.pool.upstreamOf(b!).agent).to.not.equal(ta.agent);
    });
  });

  describe('strategies', () => {
    it('balanced picks the lowest truncated percentage of the longest window, not the primary slot; ties go to the least recently selected', async () => {
      upstream.usage('key-a', usageReport([{ seconds: FIVE_HOURS, used: 10 }, { seconds: WEEK, used: 60 }]));
      upstream.usage('key-b', usageReport([{ seconds: FIVE_HOURS, used: 90 }, { seconds: WEEK, used: 40.9 }]));
      upstream.usage('key-c', usageReport([{ seconds: WEEK, used: 40.2 }]));
      const h = pool(3, { balance: 'balanced' });
      await h.pool.probeAll(true);
      const served = [await serve(h), await serve(h), await serve(h), await serve(h)];
      expect(served).to.deep.equal(['acct-b', 'acct-c', 'acct-b', 'acct-c']);
    });

    it('balanced without a fresh signal picks the least recently selected', async () => {
      const h = pool(3, { balance: 'balanced' });
      expect([await serve(h), await serve(h), await serve(h), await serve(h)]).to.deep.equal(['acct-a', 'acct-b', 'acct-c', 'acct-a']);
    });

    it('a signal older than usageSignalMaxAgeSeconds is ignored', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 90 }]));
      upstream.usage('key-b', usageReport([{ seconds: WEEK, used: 10 }]));
      const h = pool(2, { balance: 'balanced', usageSignalMaxAgeSeconds: 1 });
      await h.pool.probeAll(true);
      expect(await serve(h)).to.equal('acct-b');
      await until(async () => { await new Promise((r) => setTimeout(r, 100)); return serve(h); }, { what: 'the stale signal to be ignored', ok: (slug) => slug === 'acct-a' });
    });

    it('round_robin takes the least recently selected account', async () => {
      const h = pool(3, { balance: 'round_robin' });
      expect([await serve(h), await serve(h), await serve(h), await serve(h)]).to.deep.equal(['acct-a', 'acct-b', 'acct-c', 'acct-a']);
    });

    it('ordered takes the first free account', async () => {
      const h = pool(3, { balance: 'ordered' });
      expect([await serve(h), await serve(h)]).to.deep.equal(['acct-a', 'acct-a']);
    });

    it('candidates are the accounts whose catalog lists the model; the others stay a last resort', async () => {
      upstream.models('key-a', ['gpt-a']);
      upstream.models('key-b', ['gpt-b']);
      const h = pool(2, { balance: 'ordered' });
      await Promise.all(h.pool.accounts.map((a) => h.pool.fetchCatalog(a)));
      expect(await serve(h, 'GPT-B')).to.equal('acct-b');
      expect(await serve(h, 'gpt-a')).to.equal('acct-a');
      expect(await serve(h, 'gpt-unlisted'), 'no account lists it: every free account is a candidate').to.equal('acct-a');
    });

    it('writes account_selected only when the pool has more than one account', async () => {
      const one = pool(1);
      await serve(one);
      expect(one.sink.of('account_selected')).to.have.length(0);
      one.close();
      const two = pool(2);
      await serve(two);
      expect(two.sink.of('account_selected')[0]).to.include({ account: 'acct-a', attempt: 0 });
    });
  });

  describe('affinity', () => {
    it('pins a conversation only to the account that delivered content', async () => {
      const h = pool(2, { balance: 'round_robin' });
      upstream.script('key-a', [{ status: 400, error: { message: 'bad input', type: 'invalid_request_error', code: null } }, { text: 'a' }]);
      await serve(h, 'gpt-test', 'conv-1').catch(() => undefined);
      // Not pinned to a (it delivered nothing): round robin goes on to b.
      expect(await serve(h, 'gpt-test', 'conv-1')).to.equal('acct-b');
      // Now pinned to b: the conversation stays there although a is the least recently selected.
      expect(await serve(h, 'gpt-test', 'conv-1')).to.equal('acct-b');
      expect(await serve(h, 'gpt-test', 'conv-1')).to.equal('acct-b');
      expect(await serve(h)).to.equal('acct-a');
    });

    it('a pinned account on hold is passed over, and the conversation moves to the one that served', async () => {
      const h = pool(2, { balance: 'ordered', transientHoldSeconds: 0.2 });
      expect(await serve(h, 'gpt-test', 'conv-2')).to.equal('acct-a');
      upstream.script('key-a', [{ status: 503, error: { message: 'overloaded', type: 'server_error', code: null } }, { text: 'a' }]);
      expect(await serve(h, 'gpt-test', 'conv-2')).to.equal('acct-b');
      await until(() => status(h, 'acct-a').limited, { what: 'the transient hold to end', ok: (limited) => !limited });
      expect(await serve(h, 'gpt-test', 'conv-2'), 'ordered would pick a; the pin keeps b').to.equal('acct-b');
    });

    it('keeps at most maxAffinityPins pins, dropping the oldest', async () => {
      const h = pool(2, { balance: 'round_robin', maxAffinityPins: 2 });
      expect(await serve(h, 'gpt-test', 'c1')).to.equal('acct-a');
      expect(await serve(h, 'gpt-test', 'c2')).to.equal('acct-b');
      expect(await serve(h, 'gpt-test', 'c3')).to.equal('acct-a');
      // c1's pin was evicted: round robin decides (b is least recent).
      expect(await serve(h, 'gpt-test', 'c1')).to.equal('acct-b');
      expect(await serve(h, 'gpt-test', 'c3')).to.equal('acct-a');
    });
  });

  describe('probes and holds', () => {
    it('a report showing a reached limit holds the account until the longest exhausted window resets', async () => {
      upstream.usage('key-a', usageReport([{ seconds: FIVE_HOURS, used: 100, resetIn: 3600 }, { seconds: WEEK, used: 100, resetIn: 500_000 }]));
      const h = pool(2);
      await h.pool.probeAll(true);
      const a = status(h, 'acct-a');
      expect(a).to.include({ limited: true, limited_kind: 'quota', last_error: 'usage limit reached (from usage report)' });
      expect(a.limited_for_seconds).to.be.within(499_000, 500_000);
    });

    for (const [signal, report] of [
      ['rate_limit_reached_type', { ...usageReport([{ seconds: WEEK, used: 20 }]), rate_limit_reached_type: 'primary' }],
      ['limit_reached', usageReport([{ seconds: WEEK, used: 20 }], { rate_limit: { allowed: true, limit_reached: true, primary_window: { used_percent: 20, limit_window_seconds: WEEK } } })],
      ['allowed false', usageReport([{ seconds: WEEK, used: 20 }], { rate_limit: { allowed: false, limit_reached: false, primary_window: { used_percent: 20, limit_window_seconds: WEEK } } })],
    ] as const) {
      it(`reads every limit signal: ${signal} alone holds the account`, async () => {
        upstream.usage('key-a', report);
        const h = pool(2, { accountCooldownSeconds: 300 });
        await h.pool.probeAll(true);
        expect(status(h, 'acct-a')).to.include({ limited: true, limited_kind: 'quota' });
      });
    }

    it('a fresh report with capacity releases a hold placed before the probe started', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      const h = pool(2, { balance: 'ordered' });
      upstream.script('key-a', [quota(900)]);
      await serve(h);
      expect(status(h, 'acct-a').limited).to.equal(true);
      await h.pool.probe(h.pool.accounts[0]!, true);
      expect(status(h, 'acct-a')).to.include({ limited: false }).and.not.have.property('last_error');
    });

    it('a probe that started before a newer hold does not release it (stale evidence)', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      upstream.usageDelayMs.set('key-a', 500);
      const h = pool(2, { balance: 'ordered' });
      const probe = h.pool.probe(h.pool.accounts[0]!, true);
      upstream.script('key-a', [quota(900)]);
      await serve(h);
      const result = await probe;
      expect(result.ok).to.equal(true);
      expect(status(h, 'acct-a')).to.include({ limited: true, limited_kind: 'quota' });
    });

    it('refresh clears nothing up front: during the re-check the held account stays out of selection', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      const h = pool(2, { balance: 'ordered' });
      upstream.script('key-a', [quota(900), { text: 'a' }]);
      await serve(h);
      upstream.usageDelayMs.set('key-a', 400);
      const refresh = h.pool.refresh('req_refresh');
      expect(status(h, 'acct-a').limited, 'still held while the probe runs').to.equal(true);
      expect(await serve(h), 'live traffic keeps off the held account').to.equal('acct-b');
      const statuses = await refresh;
      expect(statuses.find((s) => s.slug === 'acct-a')).to.include({ limited: false });
      expect(h.sink.of('accounts_refresh')[0]).to.deep.include({ request_id: 'req_refresh', accounts: [{ account: 'acct-a', was_limited: true, limited: false }, { account: 'acct-b', was_limited: false, limited: false }] });
    });

    it('probes go through a cache: a second unforced probe within usageCacheSeconds costs no call', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      const h = pool(2);
      await h.pool.probe(h.pool.accounts[0]!, false);
      await h.pool.probe(h.pool.accounts[0]!, false);
      await Promise.all([h.pool.probe(h.pool.accounts[0]!, false), h.pool.probe(h.pool.accounts[0]!, false)]);
      expect(upstream.usageCalls.get('key-a')).to.equal(1);
      await h.pool.probe(h.pool.accounts[0]!, true);
      expect(upstream.usageCalls.get('key-a')).to.equal(2);
    });

    it('concurrent probes of one account share one upstream call (single flight)', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      upstream.usageDelayMs.set('key-a', 200);
      const h = pool(2);
      await Promise.all([h.pool.probeAll(true), h.pool.probeAll(true), h.pool.probeAll(false)]);
      expect(upstream.usageCalls.get('key-a')).to.equal(1);
    });

    it('leaves a usage endpoint that answered 429 alone for usageBackoffSeconds, refreshes included (reference §8 item 24)', async () => {
      upstream.usage('key-a', { status: 429, error: { message: 'Too many usage checks.', type: 'rate_limit_error', code: 'rate_limited' } });
      const h = pool(2, { usageBackoffSeconds: 0.3 });
      const first = await h.pool.probe(h.pool.accounts[0]!, true);
      expect(first).to.include({ ok: false, status: 429 });
      expect(await h.pool.probe(h.pool.accounts[0]!, true)).to.equal(first);
      await h.pool.refresh('req_refresh');
      expect(upstream.usageCalls.get('key-a')).to.equal(1);
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 30 }]));
      await until(async () => (await h.pool.probe(h.pool.accounts[0]!, true)).ok, { what: 'a probe after the backoff', ok: (ok) => ok });
      expect(upstream.usageCalls.get('key-a')).to.equal(2);
    });

    it('takes the usage endpoint\'s resets_in_seconds over usageBackoffSeconds', async () => {
      upstream.usage('key-a', { status: 429, error: { message: 'Too many usage checks.', type: 'rate_limit_error', code: 'rate_limited', resets_in_seconds: 3600 } });
      const h = pool(2, { usageBackoffSeconds: 0 });
      await h.pool.probe(h.pool.accounts[0]!, true);
      await h.pool.probe(h.pool.accounts[0]!, true);
      expect(upstream.usageCalls.get('key-a')).to.equal(1);
    });

    it('warm start probes every account and fetches catalogs, holding exhausted accounts before the first request', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 100, resetIn: 7200 }]));
      upstream.usage('key-b', usageReport([{ seconds: WEEK, used: 10 }]));
      const h = pool(2);
      h.pool.start();
      const [warmed] = await until(() => h.sink.of('account_pool_warmed'), { what: 'account_pool_warmed', ok: (r) => r.length > 0 });
      expect(warmed!.accounts).to.deep.equal([{ account: 'acct-a', limited: true, models_known: 1 }, { account: 'acct-b', limited: false, models_known: 1 }]);
      expect(await serve(h)).to.equal('acct-b');
    });

    it('the background refresher probes every refreshIntervalSeconds and survives failing probes', async () => {
      upstream.usage('key-a', { status: 500, error: { message: 'usage down' } });
      upstream.usage('key-b', usageReport([{ seconds: WEEK, used: 10 }]));
      const h = pool(2, { refreshIntervalSeconds: 1, usageCacheSeconds: 0.01 });
      h.pool.start();
      await until(() => upstream.usageCalls.get('key-b') ?? 0, { what: 'three probes of b', ok: (n) => n >= 3 });
      expect(upstream.usageCalls.get('key-a')).to.be.at.least(2);
    });
  });

  describe('window token tally', () => {
    it('counts usage per model in the longest window, persists it, and a new window starts it over', async () => {
      upstream.usage('key-a', usageReport([{ seconds: FIVE_HOURS, used: 5, resetIn: 3000 }, { seconds: WEEK, used: 5, resetIn: 400_000 }]));
      const first = pool(2);
      await first.pool.probeAll(true);
      first.pool.tally('acct-a', 'gpt-test', { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } });
      first.pool.tally('acct-a', 'gpt-test', { input_tokens: 1, output_tokens: 1 });
      first.pool.tally('acct-a', 'gpt-other', { prompt_tokens: 3, completion_tokens: 0 });
      const tokens = status(first, 'acct-a').window_tokens!;
      expect(tokens).to.deep.include({ object: 'relay_window_tokens', scope: 'current_usage_window_via_this_relay', window_seconds: WEEK, window_label: 'weekly' });
      expect(tokens.totals).to.deep.equal({ input_tokens: 14, output_tokens: 5, cached_input_tokens: 2 });
      expect(status(first, 'acct-b')).to.not.have.property('window_tokens');
      const dataDir = first.dataDir;
      first.pool.stop();
      expect(existsSync(join(dataDir, 'window-tokens.json'))).to.equal(true);
      harness = null;

      const second = pool(2, {}, dataDir);
      expect((status(second, 'acct-a').window_tokens!.totals as Record<string, number>).input_tokens, 'kept across a restart').to.equal(14);
      await second.pool.probeAll(true);
      expect(status(second, 'acct-a').window_tokens, 'same window: kept').to.not.equal(undefined);
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 0, resetIn: WEEK }]));
      await second.pool.probeAll(true);
      expect(status(second, 'acct-a'), 'a new weekly window clears the tally').to.not.have.property('window_tokens');
      second.close();
      harness = null;
      first.close();
    });

    it('writes the tally behind while serving (no stop), the latest counts catching up', async () => {
      upstream.usage('key-a', usageReport([{ seconds: WEEK, used: 5, resetIn: 400_000 }]));
      const h = pool(2);
      await h.pool.probeAll(true);
      const file = join(h.dataDir, 'window-tokens.json');
      const saved = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as Record<string, { models: Record<string, { input_tokens: number }> }> : null);
      h.pool.tally('acct-a', 'gpt-test', { prompt_tokens: 10, completion_tokens: 4 });
      await until(() => saved()?.['acct-a']?.models['gpt-test']?.input_tokens, { what: 'the first counts on disk', ok: (n) => n === 10 });
      h.pool.tally('acct-a', 'gpt-test', { prompt_tokens: 5, completion_tokens: 1 });
      await until(() => saved()?.['acct-a']?.models['gpt-test']?.input_tokens, { what: 'the later counts on disk', ok: (n) => n === 15 });
      h.pool.tally('acct-a', 'gpt-test', { prompt_tokens: 1, completion_tokens: 1 });
      h.pool.stop();
      expect(saved()?.['acct-a']?.models['gpt-test']?.input_tokens, 'written at stop').to.equal(16);
    });
  });
});
