/**
 * The pool's routes through the front door of a real kernel with the relay plugin alone:
 * `POST /v1/relay/accounts/refresh` (holds released only on evidence, seed §3) and
 * `GET /v1/subscription/status` + `/v1/account/rate_limits` (reference §1.5: windows by duration,
 * the account resolver, the list shape, `raw`, providers).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { definePlugin } from '@keel/plugin-sdk';
import relayPlugin, { RelayFailure, subscriptionRoutes, type CliUsageStatus } from '@keel/plugin-relay';
import { OPEN_GATE, relayTokenOf } from './helpers/relay-gate.js';
import { RelayUpstream, usageReport } from './helpers/relay-upstream.js';

const WEEK = 604_800;
const FIVE_HOURS = 18_000;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('relay pool routes', () => {
  const upstream = new RelayUpstream();
  const kernels: TestKernel[] = [];

  before(async () => {
    await upstream.start();
  });
  after(() => upstream.stop());
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });
  beforeEach(() => {
    upstream.account('key-ann', { usage: usageReport([{ seconds: FIVE_HOURS, used: 12.5, resetIn: 3600 }, { seconds: WEEK, used: 40, resetIn: 86_400 }], { email: 'ann@example.com', account_id: 'acc-ann' }) });
    upstream.account('key-anna', { usage: usageReport([{ seconds: WEEK, used: 70, resetIn: 200_000 }]) });
    upstream.account('key-bob', { usage: usageReport([{ seconds: WEEK, used: 5 }]) });
    upstream.usageCalls.clear();
  });

  async function relay(accounts: Array<Record<string, unknown>>, hosted: Record<string, unknown> = {}, cli: Record<string, unknown> = { enabled: false }) {
    const kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config: { gate: OPEN_GATE, hosted: { accounts, ...hosted }, cli } }] });
    kernels.push(kernel);
    const call = async (method: string, url: string, token: string | null = relayTokenOf(kernel)) => {
      const res = await kernel.inject({ method, url, ...(token ? { token } : {}) });
      return { status: res.statusCode, body: res.json<Json>() };
    };
    return { kernel, call };
  }
  const three = () => [
    { email: 'ann@example.com', baseUrl: upstream.url, apiKey: 'key-ann', usagePath: '/usage' },
    { email: 'anna@example.com', baseUrl: upstream.url, apiKey: 'key-anna', usagePath: '/usage' },
    { slug: 'bob', baseUrl: upstream.url, apiKey: 'key-bob', usagePath: '/usage' },
  ];

  describe('POST /v1/relay/accounts/refresh', () => {
    it('keeps a hold while the fresh report shows no capacity, and releases it once one does', async () => {
      upstream.usage('key-anna', usageReport([{ seconds: WEEK, used: 100, resetIn: 50_000 }]));
      const { call } = await relay(three());
      const first = await call('POST', '/v1/relay/accounts/refresh');
      expect(first.status).to.equal(200);
      expect(first.body.object).to.equal('accounts.refresh');
      const anna = () => first.body.accounts.find((a: Json) => a.email === 'anna@example.com');
      expect(anna()).to.include({ limited: true, limited_kind: 'quota', last_error: 'usage limit reached (from usage report)' });
      expect(anna().limited_for_seconds).to.be.within(49_000, 50_000);
      expect(first.body.accounts.map((a: Json) => a.limited)).to.deep.equal([false, true, false]);

      const again = await call('POST', '/v1/relay/accounts/refresh');
      expect(again.body.accounts[1].limited, 'no capacity in the fresh report: the hold stays').to.equal(true);

      upstream.usage('key-anna', usageReport([{ seconds: WEEK, used: 35 }]));
      const released = await call('POST', '/v1/relay/accounts/refresh');
      expect(released.body.accounts[1]).to.include({ limited: false }).and.not.have.property('last_error');
      expect(released.body.accounts[1].usage_windows[0]).to.include({ window_label: 'weekly', used_percent: 35 });
    });

    it('forces a fresh probe of every account each time (the usage cache is bypassed)', async () => {
      // One account: no warm start whose probe a refresh could join.
      const { call } = await relay([three()[2]!]);
      await call('GET', '/v1/subscription/status');
      await call('POST', '/v1/relay/accounts/refresh');
      await call('POST', '/v1/relay/accounts/refresh');
      expect(upstream.usageCalls.get('key-bob')).to.equal(3);
    });

    it('needs the relay credential: none or a bad one is 401 in the relay envelope', async () => {
      const { call } = await relay(three());
      const none = await call('POST', '/v1/relay/accounts/refresh', null);
      expect(none.status).to.equal(401);
      expect(none.body.error.message).to.equal(none.body.detail);
      expect((await call('POST', '/v1/relay/accounts/refresh', 'not-a-token')).status).to.equal(401);
    });

    it('is 501 when the hosted runtime is disabled', async () => {
      const { call } = await relay([], { enabled: false });
      const res = await call('POST', '/v1/relay/accounts/refresh');
      expect(res.status).to.equal(501);
      expect(res.body.error.code).to.equal('unsupported_error');
    });
  });

  describe('GET /v1/subscription/status', () => {
    it('answers the first account normalised: windows by duration with label, percentages and reset times', async () => {
      const { call } = await relay(three());
      const res = await call('GET', '/v1/subscription/status');
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ object: 'subscription_status', provider: 'hosted' });
      expect(res.body.account).to.include({ email: 'ann@example.com', account_id: 'acc-ann', plan_type: 'plus' });
      const { primary_window: primary, secondary_window: secondary } = res.body.rate_limits.default;
      expect(primary).to.include({ used_percent: 12.5, remaining_percent: 87.5, window_seconds: FIVE_HOURS, window_minutes: 300, window_label: '5h', reset_after_seconds: 3600 });
      expect(secondary).to.include({ used_percent: 40, remaining_percent: 60, window_label: 'weekly', window_minutes: 10080 });
      expect(new Date(secondary.reset_at_iso).getTime()).to.equal(secondary.reset_at * 1000);
      expect(res.body).to.not.have.property('raw');
    });

    it('reports only the windows the upstream sent (a weekly-only plan has no 5h row)', async () => {
      const { call } = await relay(three());
      const res = await call('GET', '/v1/subscription/status?account=anna@example.com');
      expect(res.body.rate_limits.default.primary_window).to.include({ window_label: 'weekly', used_percent: 70 });
      expect(res.body.rate_limits.default.secondary_window).to.equal(null);
    });

    it('the alias /v1/account/rate_limits answers the same', async () => {
      const { call } = await relay(three());
      const a = await call('GET', '/v1/subscription/status?account=bob');
      const b = await call('GET', '/v1/account/rate_limits?account=bob');
      expect(b.status).to.equal(200);
      expect(b.body.rate_limits).to.deep.equal(a.body.rate_limits);
    });

    it('resolves account= by exact email or slug, else a unique prefix', async () => {
      const { call } = await relay(three());
      expect((await call('GET', '/v1/subscription/status?account=ANN@example.com')).body.account.email).to.equal('ann@example.com');
      expect((await call('GET', '/v1/subscription/status?account=bo')).body.account.slug).to.equal('bob');
      expect((await call('GET', '/v1/subscription/status?account=anna')).body.account.email).to.equal('anna@example.com');
    });

    it('an ambiguous prefix is 400 naming the matches; an unknown id is 404 naming the accounts', async () => {
      const { call } = await relay(three());
      const ambiguous = await call('GET', '/v1/subscription/status?account=an');
      expect(ambiguous.status).to.equal(400);
      expect(ambiguous.body.error.code).to.equal('ambiguous_account');
      expect(ambiguous.body.error.message).to.contain('ann@example.com').and.contain('anna@example.com');
      const unknown = await call('GET', '/v1/subscription/status?account=zed');
      expect(unknown.status).to.equal(404);
      expect(unknown.body.error.code).to.equal('unknown_account');
      expect(unknown.body.error.message).to.contain('bob');
    });

    it('all_accounts=true lists every account, a failing one as an error entry', async () => {
      upstream.usage('key-bob', { status: 500, error: { message: 'usage is down' } });
      const { call } = await relay(three());
      const res = await call('GET', '/v1/subscription/status?all_accounts=true');
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('subscription_status_list');
      expect(res.body.accounts.map((a: Json) => a.email ?? a.slug)).to.deep.equal(['ann@example.com', 'anna@example.com', 'bob']);
      expect(res.body.accounts[0].status.object).to.equal('subscription_status');
      expect(res.body.accounts[2]).to.include({ slug: 'bob' });
      expect(res.body.accounts[2].error).to.match(/status 500: usage is down/);
    });

    it('all_accounts=true with one account folds to the single shape', async () => {
      const { call } = await relay([three()[2]!]);
      const res = await call('GET', '/v1/subscription/status?all_accounts=true');
      expect(res.body.object).to.equal('subscription_status');
    });

    it('raw=true adds the upstream report verbatim', async () => {
      const { call } = await relay(three());
      const res = await call('GET', '/v1/subscription/status?raw=true');
      expect(res.body.raw.rate_limit.secondary_window.limit_window_seconds).to.equal(WEEK);
    });

    it('polling goes through the usage cache: at most one upstream call per account per period', async () => {
      const { call } = await relay([three()[2]!]);
      for (let i = 0; i < 3; i++) expect((await call('GET', '/v1/subscription/status')).status).to.equal(200);
      expect(upstream.usageCalls.get('key-bob')).to.equal(1);
    });

    it('a failing usage report is 502 saying requests are unaffected; an account without one is 404', async () => {
      upstream.usage('key-bob', { status: 500, error: { message: 'usage is down' } });
      const { call } = await relay([three()[2]!, { slug: 'quiet', baseUrl: upstream.url, apiKey: 'key-ann' }]);
      const failing = await call('GET', '/v1/subscription/status?account=bob');
      expect(failing.status).to.equal(502);
      expect(failing.body.error.message).to.match(/Requests are unaffected/);
      const quiet = await call('GET', '/v1/subscription/status?account=quiet');
      expect(quiet.status).to.equal(404);
      expect(quiet.body.error.code).to.equal('usage_not_reported');
    });

    it('provider=cli is 501 while the local client is disabled; an unknown provider is 501; a disabled hosted runtime is 501', async () => {
      const { call } = await relay(three());
      expect((await call('GET', '/v1/subscription/status?provider=cli')).status).to.equal(501);
      const other = await call('GET', '/v1/subscription/status?provider=elsewhere');
      expect(other.status).to.equal(501);
      expect(other.body.error.message).to.match(/provider=hosted/);
      const disabled = await relay([], { enabled: false });
      expect((await disabled.call('GET', '/v1/subscription/status')).status).to.equal(501);
    });

    it('provider=cli answers what the local client part provides, and its failure with its own status', async () => {
      let usage: CliUsageStatus = async () => ({ object: 'subscription_status', provider: 'cli', rate_limits: { default: null, additional: [] } });
      const plugin = definePlugin({
        id: 'relay-cli-probe', version: '0.0.0', sdk: '^1.0.0', defaultPrefix: '/v1',
        setup: () => ({ routes: subscriptionRoutes({ pool: null, cliEnabled: true, cliUsage: () => usage(), auth: 'admin' }) }),
      });
      const kernel = await createTestKernel({ plugins: [plugin] });
      kernels.push(kernel);
      const ok = await kernel.inject({ url: '/v1/subscription/status?provider=cli', token: kernel.adminToken });
      expect(ok.statusCode).to.equal(200);
      expect(ok.json<Json>()).to.include({ provider: 'cli' });
      usage = async () => { throw new RelayFailure(503, { message: 'The local command-line client is not available.', type: 'provider_unavailable', code: 'provider_unavailable' }); };
      const down = await kernel.inject({ url: '/v1/subscription/status?provider=cli', token: kernel.adminToken });
      expect(down.statusCode).to.equal(503);
      expect(down.json<Json>()).to.deep.include({ detail: 'The local command-line client is not available.' });
      expect(down.json<Json>().error.code).to.equal('provider_unavailable');
      const hosted = await kernel.inject({ url: '/v1/subscription/status', token: kernel.adminToken });
      expect(hosted.statusCode, 'hosted runtime off').to.equal(501);
    });

    it('needs the relay credential, and hostile query values are refused or answered, never crash', async () => {
      const { call } = await relay(three());
      expect((await call('GET', '/v1/subscription/status', null)).status).to.equal(401);
      expect((await call('GET', `/v1/subscription/status?account=${'a'.repeat(400)}`)).status).to.equal(400);
      expect((await call('GET', '/v1/subscription/status?all_accounts=maybe')).status).to.equal(400);
      const odd = await call('GET', `/v1/subscription/status?account=${encodeURIComponent('../../etc/passwd')}`);
      expect(odd.status).to.equal(404);
    });

    it('both routes are in /openapi.json', async () => {
      const { kernel } = await relay(three());
      const doc = (await kernel.inject({ url: '/openapi.json' })).json<Json>();
      expect(doc.paths).to.have.property('/v1/subscription/status');
      expect(doc.paths).to.have.property('/v1/account/rate_limits');
      expect(doc.paths).to.have.property('/v1/relay/accounts/refresh');
    });
  });
});
