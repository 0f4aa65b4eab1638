/**
 * `GET /v1/relay/traffic?limit=`: the notable records the traffic log keeps for the status page,
 * newest first, behind the relay token, `limit` bounded by `ui.maxTrafficRecords`. Records come from
 * real pool events (`accounts_refresh` on `POST /v1/relay/accounts/refresh`).
 */
import { expect } from 'chai';
import { startRelay, type RelayUiHarness } from './helpers/relay-ui.js';
import { RelayUpstream, usageReport } from './helpers/relay-upstream.js';
import { until } from './helpers/until.js';

interface TrafficAnswer {
  object: string;
  limit: number;
  data: Array<{ phase: string; accounts?: Array<{ account: string; limited: boolean }>; logged_at?: string }>;
}

describe('relay status page: GET /v1/relay/traffic', function () {
  this.timeout(60_000);
  let relay: RelayUiHarness;

  /** `token` null sends none. */
  const traffic = (query = '', token: string | null = relay.token) => relay.kernel.inject({ url: `/v1/relay/traffic${query}`, token: token ?? undefined });

  before(async () => {
    const upstream = new RelayUpstream();
    await upstream.start();
    upstream.account('key-ana', { usage: usageReport([{ seconds: 604800, used: 10 }]) });
    relay = await startRelay({
      upstream,
      accounts: (url) => [{ slug: 'ana', baseUrl: url, apiKey: 'key-ana', usagePath: '/usage' }],
      config: { ui: { maxTrafficRecords: 3 } },
    });
  });
  after(async () => relay?.stop());

  it('needs the relay token: none or a wrong one is a 401 in the relay envelope', async () => {
    for (const token of [null, 'not-the-token', `${relay.token}x`, relay.kernel.adminToken]) {
      const res = await traffic('', token);
      expect(res.statusCode, String(token)).to.equal(401);
      const body = res.json<{ error: { message: string }; detail: string }>();
      expect(body.error.message).to.be.a('string').and.not.equal('');
      expect(body.detail).to.equal(body.error.message);
      expect(res.body).not.to.include('accounts_refresh');
    }
  });

  it('answers an empty list before anything notable happened', async () => {
    const res = await traffic();
    expect(res.statusCode).to.equal(200);
    expect(res.json()).to.deep.equal({ object: 'list', limit: 3, data: [] });
  });

  it('answers the notable records newest first, at most `limit`', async () => {
    const refresh = () => relay.kernel.inject({ method: 'POST', url: '/v1/relay/accounts/refresh', token: relay.token });
    expect((await refresh()).statusCode).to.equal(200);
    relay.upstream.usage('key-ana', usageReport([{ seconds: 604800, used: 100, resetIn: 3600 }]));
    expect((await refresh()).statusCode).to.equal(200);
    const all = await until(async () => (await traffic()).json<TrafficAnswer>(), { what: 'two accounts_refresh records', ok: (b) => b.data.length === 2 });
    expect(all.data.map((r) => r.phase)).to.deep.equal(['accounts_refresh', 'accounts_refresh']);
    expect(all.data.map((r) => r.accounts![0]!.limited), 'newest (the exhausted report) first').to.deep.equal([true, false]);
    const one = (await traffic('?limit=1')).json<TrafficAnswer>();
    expect(one.limit).to.equal(1);
    expect(one.data).to.have.length(1);
    expect(one.data[0]!.accounts![0]!.limited).to.equal(true);
  });

  it('keeps the newest `ui.maxTrafficRecords` when more happened', async () => {
    relay.upstream.usage('key-ana', usageReport([{ seconds: 604800, used: 5 }]));
    for (let i = 0; i < 3; i++) expect((await relay.kernel.inject({ method: 'POST', url: '/v1/relay/accounts/refresh', token: relay.token })).statusCode).to.equal(200);
    const body = (await traffic('?limit=3')).json<TrafficAnswer>();
    expect(body.data).to.have.length(3);
    expect(body.data[0]!.accounts![0]!.limited, 'the newest record is the latest refresh').to.equal(false);
  });

  it('refuses a limit out of 1..ui.maxTrafficRecords, not an integer, or an unknown parameter', async () => {
    for (const query of ['?limit=0', '?limit=4', '?limit=-1', '?limit=abc', '?limit=1.5', '?limit=1e9', '?limit=2&since=0', '?limit[]=1']) {
      const res = await traffic(query);
      expect(res.statusCode, query).to.equal(400);
      expect(res.json<{ error: { message: string } }>().error.message, query).to.be.a('string').and.not.equal('');
    }
  });

  it('polling it is monitoring: requests_total does not move', async () => {
    const total = async () => (await relay.kernel.inject({ url: '/v1/relay/status?activity_only=true', token: relay.token })).json<{ requests_total: number }>().requests_total;
    const before = await total();
    for (let i = 0; i < 3; i++) expect((await traffic('?limit=1')).statusCode).to.equal(200);
    expect(await total()).to.equal(before);
  });

  it('is in /openapi.json with its bounded limit; the page files are not (but the page is)', async () => {
    const doc = (await relay.kernel.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema: { maximum?: number } }> }>> }>();
    const limit = doc.paths['/v1/relay/traffic']!.get!.parameters!.find((p) => p.name === 'limit')!;
    expect(limit.schema.maximum).to.equal(3);
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/relay/'))).to.deep.equal(['/relay/ui']);
  });
});
