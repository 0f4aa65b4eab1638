/**
 * The relay's account pool (reference §3.4, §3.5, §3.8, §3.9) driven with a real upstream
 * (`RelayUpstream`, several accounts by API key) and a real attempt over the pool's agents: every
 * failover, hold and retry rule, and the final error's rewrite.
 */
import { expect } from 'chai';
import { RelayFailure } from '@keel/plugin-relay';
import { RelayUpstream } from './helpers/relay-upstream.js';
import { callAccount, hostedSettings, makePool, poolRequest, type PoolHarness, type HostedSettings } from './helpers/relay-pool.js';
import { until } from './helpers/until.js';

const quota = (resets: number) => ({ status: 429, error: { message: 'You have hit your usage limit.', type: 'usage_limit_reached', code: 'usage_limit_reached', resets_in_seconds: resets } });
const overloaded = { status: 503, error: { message: 'The upstream is overloaded.', type: 'server_error', code: 'overloaded' } };
const contextTooLong = { status: 400, error: { message: 'This model maximum context length is 8192 tokens.', type: 'invalid_request_error', code: 'context_length_exceeded' } };

type Status = { slug: string; limited: boolean; limited_for_seconds?: number; limited_kind?: string; last_error?: string };

describe('relay pool: failover, holds and retries', () => {
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
  });
  afterEach(() => {
    harness?.close();
    harness = null;
  });

  function pool(count: number, overrides: Partial<HostedSettings> = {}) {
    const accounts = keys.slice(0, count).map((key) => ({ slug: key.replace('key-', 'acct-'), baseUrl: upstream.url, apiKey: key }));
    harness = makePool(hostedSettings(accounts, { balance: 'ordered', ...overrides }));
    return harness;
  }
  const status = (h: PoolHarness, slug: string) => (h.pool.accountStatuses() as Status[]).find((s) => s.slug === slug)!;
  const failureOf = async (promise: Promise<unknown>): Promise<RelayFailure> => {
    try {
      await promise;
    } catch (err) {
      expect(err).to.be.instanceOf(RelayFailure);
      return err as RelayFailure;
    }
    throw new Error('expected the run to fail');
  };

  it('a 429 with resets_in_seconds holds the account as quota for that long and fails over to the next one', async () => {
    const h = pool(2);
    upstream.script('key-a', [quota(600)]);
    const served = await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account));
    expect(served).to.equal('acct-b');
    const a = status(h, 'acct-a');
    expect(a.limited).to.equal(true);
    expect(a.limited_kind).to.equal('quota');
    expect(a.limited_for_seconds).to.be.within(590, 600);
    expect(a.last_error).to.match(/^status 429: You have hit your usage limit/);
    const [failover] = h.sink.of('account_failover');
    expect(failover).to.include({ from_account: 'acct-a', to_account: 'acct-b' });
    expect(failover!.cooldown_seconds).to.be.within(590, 600);
    expect(h.sink.of('account_selected').map((r) => [r.account, r.attempt])).to.deep.equal([['acct-a', 0], ['acct-b', 1]]);
  });

  it('a held account is passed over by the next selection', async () => {
    const h = pool(2);
    upstream.script('key-a', [quota(600), { text: 'a' }]);
    await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account));
    const served = await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account));
    expect(served).to.equal('acct-b');
    expect(upstream.generations('key-a')).to.have.length(1);
  });

  it('a 5xx holds the account as transient for at most transientHoldSeconds and fails over', async () => {
    const h = pool(2, { transientHoldSeconds: 30 });
    upstream.script('key-a', [overloaded]);
    expect(await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account))).to.equal('acct-b');
    const a = status(h, 'acct-a');
    expect(a.limited_kind).to.equal('transient');
    expect(a.limited_for_seconds).to.be.within(20, 30);
  });

  it('a 401 holds the account as auth and fails over', async () => {
    const h = pool(2);
    upstream.script('key-a', [{ status: 401, error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }]);
    expect(await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account))).to.equal('acct-b');
    expect(status(h, 'acct-a').limited_kind).to.equal('auth');
  });

  it('a 400 class error is one upstream call: no hold, no failover, no retry, passed through', async () => {
    const h = pool(3, { retryAttempts: 3 });
    upstream.script('key-a', [contextTooLong]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.status).to.equal(400);
    expect(failure.error).to.deep.include({ code: 'context_length_exceeded', message: contextTooLong.error.message });
    expect(upstream.generations()).to.have.length(1);
    expect(status(h, 'acct-a').limited).to.equal(false);
    expect(h.sink.of('account_failover')).to.have.length(0);
    expect(h.sink.of('retry_backoff')).to.have.length(0);
  });

  it('a usage-limit marker echoed in a 400 message holds nothing: only a 429 or a structured type counts', async () => {
    const h = pool(2);
    upstream.script('key-a', [{ status: 400, error: { message: 'you wrote usage_limit_reached in your prompt', type: 'invalid_request_error', code: null } }]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.status).to.equal(400);
    expect(status(h, 'acct-a').limited).to.equal(false);
  });

  it('every account on a quota hold: "at their limits" with resets_in_seconds the earliest hold end, on a 429', async () => {
    const h = pool(2);
    upstream.script('key-a', [quota(900)]);
    upstream.script('key-b', [quota(120)]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.status).to.equal(429);
    expect(failure.error.message).to.match(/^All 2 hosted accounts are at their limits \(earliest retry in \d+s\)\. Last error: You have hit your usage limit\.$/);
    expect(failure.error.resets_in_seconds).to.be.within(110, 120);
    expect(failure.error.code).to.equal('usage_limit_reached');
    expect(status(h, 'acct-b').limited, 'the last attempt is held too').to.equal(true);
  });

  it('mixed holds (quota and transient): "failed for this request" with no horizon', async () => {
    const h = pool(2);
    upstream.script('key-a', [quota(900)]);
    upstream.script('key-b', [overloaded]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.status).to.equal(503);
    expect(failure.error.message).to.equal('All 2 hosted accounts failed for this request. Last error: The upstream is overloaded.');
    expect(failure.error).to.not.have.property('resets_in_seconds');
    expect(failure.error.message).to.not.match(/at their limits/);
  });

  it('an error object without code or type is marked upstream_error / all_accounts_limited', async () => {
    const h = pool(2);
    upstream.script('key-a', [{ status: 502, error: { message: 'bad gateway' } }]);
    upstream.script('key-b', [{ status: 502, error: { message: 'bad gateway' } }]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.error).to.include({ type: 'upstream_error', code: 'all_accounts_limited' });
  });

  it('a single account passes its error through unchanged', async () => {
    const h = pool(1);
    upstream.script('key-a', [quota(60)]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.error).to.deep.equal(quota(60).error);
  });

  it('holds only extend: a transient error never shortens a quota hold, and the kind follows the freshest evidence', async () => {
    const h = pool(2, { balance: 'ordered' });
    upstream.script('key-a', [quota(600), overloaded]);
    upstream.script('key-b', [overloaded, { text: 'ok' }]);
    await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    // a: quota 600 s, b: transient; the second pass starts with the account released first (b) and then tries a.
    upstream.script('key-b', [overloaded]);
    await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    const a = status(h, 'acct-a');
    expect(a.limited_kind).to.equal('transient');
    expect(a.limited_for_seconds).to.be.above(500);
  });

  it('a hold ends once the wall-clock reset has passed (monotonic time stands still in sleep)', async () => {
    const h = pool(2);
    upstream.script('key-a', [quota(600)]);
    await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account));
    expect(status(h, 'acct-a').limited).to.equal(true);
    h.wall.offsetMs = 601_000;
    expect(status(h, 'acct-a').limited).to.equal(false);
  });

  it('retries whole passes on 5xx with the configured backoff, writing retry_backoff', async () => {
    const h = pool(2, { retryAttempts: 2, retryBackoffSeconds: [0.05, 0.1], transientHoldSeconds: 30 });
    upstream.script('key-a', [overloaded, { text: 'second pass' }]);
    upstream.script('key-b', [overloaded, { text: 'second pass' }]);
    const served = await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account));
    expect(['acct-a', 'acct-b']).to.include(served);
    expect(upstream.generations()).to.have.length(3);
    const [backoff, ...more] = h.sink.of('retry_backoff');
    expect(more).to.have.length(0);
    expect(backoff).to.include({ attempt: 1, max_attempts: 2, delay_seconds: 0.05, status_code: 503 });
    expect(backoff!.reason).to.be.a('string');
  });

  it('gives up after retryAttempts retries with the last error', async () => {
    const h = pool(2, { retryAttempts: 2, retryBackoffSeconds: [0.05] });
    upstream.script('key-a', [overloaded]);
    upstream.script('key-b', [overloaded]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.status).to.equal(503);
    expect(upstream.generations()).to.have.length(6);
    expect(h.sink.of('retry_backoff').map((r) => r.delay_seconds)).to.deep.equal([0.05, 0.05]);
  });

  it('never retries a client error', async () => {
    const h = pool(1, { retryAttempts: 3 });
    upstream.script('key-a', [contextTooLong]);
    await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(upstream.generations()).to.have.length(1);
  });

  it('skips the retry when resets_in_seconds lies beyond the remaining backoff (retry_skipped)', async () => {
    const h = pool(1, { retryAttempts: 3, retryBackoffSeconds: [0.05, 0.1] });
    upstream.script('key-a', [quota(3600)]);
    const failure = await failureOf(h.pool.run(poolRequest(), (account) => callAccount(h.pool, account)));
    expect(failure.error.resets_in_seconds).to.equal(3600);
    expect(upstream.generations()).to.have.length(1);
    expect(h.sink.of('retry_skipped')[0]).to.include({ reason: 'quota_resets_beyond_backoff', status_code: 429, resets_in_seconds: 3600 });
  });

  it('retries a 429 whose reset is within the remaining backoff', async () => {
    const h = pool(1, { retryAttempts: 2, retryBackoffSeconds: [0.05, 0.1] });
    upstream.script('key-a', [{ ...quota(0.1) }, { text: 'ok' }]);
    expect(await h.pool.run(poolRequest(), (account) => callAccount(h.pool, account))).to.equal('acct-a');
    expect(upstream.generations()).to.have.length(2);
  });

  it('gives up when the client went away during the backoff (retry_skipped client_disconnected)', async () => {
    const h = pool(1, { retryAttempts: 3, retryBackoffSeconds: [60] });
    upstream.script('key-a', [overloaded]);
    const controller = new AbortController();
    const run = failureOf(h.pool.run(poolRequest('gpt-test', { signal: controller.signal }), (account) => callAccount(h.pool, account)));
    await until(() => h.sink.of('retry_backoff').length, { what: 'the first retry wait' });
    controller.abort();
    const failure = await run;
    expect(failure.status).to.equal(503);
    expect(upstream.generations()).to.have.length(1);
    expect(h.sink.of('retry_skipped')[0]).to.include({ reason: 'client_disconnected', status_code: 503 });
  });

  it('a failure after the client went away holds no account', async () => {
    const h = pool(2);
    const controller = new AbortController();
    upstream.script('key-a', [{ hang: true }]);
    const run = h.pool.run(poolRequest('gpt-test', { signal: controller.signal }), async (account) => {
      callAccount(h.pool, account).catch(() => undefined);
      await until(() => upstream.generations().length, { what: 'the upstream call' });
      controller.abort();
      throw new RelayFailure(502, { message: 'the client went away', type: 'server_error', code: 'client_closed' });
    });
    await run.catch(() => undefined);
    expect(status(h, 'acct-a').limited).to.equal(false);
    expect(h.sink.of('account_failover')).to.have.length(0);
  });

  it('the attempt resolving is the point of no return: nothing after it is retried or failed over', async () => {
    const h = pool(2, { retryAttempts: 3 });
    let calls = 0;
    const answer = await h.pool.run(poolRequest(), async (account) => {
      calls++;
      return { account: account.slug, frames: (async function* () { yield 'first'; throw new Error('broke after the first byte'); })() };
    });
    expect(calls).to.equal(1);
    expect(answer.account).to.equal('acct-a');
  });
});
