/**
 * Runtime administration through the HTTP API (seed 000 §4.10): `GET /admin/runtimes` (each
 * account's plane with its counts, `?account=` / `?tenant_id=`) and `/admin/runtime-reservations`
 * (slots reserved per account, honoured by the active-run cap of `/runs/start` and `/runs/schedule`,
 * kept across a restart).
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

interface Plane {
  account: string;
  tenant_id: string | null;
  exists: boolean;
  runs: Record<string, number>;
  runs_total: number;
  root_runs: number;
  active_runs: number;
  sessions: number;
  private_bundles: number;
  cap: { max_active_runs: number; default_max_active_runs: number; source: string; admin_exempt: boolean };
  reservation: { slots: number; note: string; reserved_by: string } | null;
}

describe('runtime administration: /admin/runtimes and /admin/runtime-reservations (HTTP, LMDB)', function () {
  let k: TestKernel;
  let bob: string;
  let carol: string;
  const data = tempDir('keel-runtimes-');
  const boot = () => createTestKernel({
    dataDir: data.dir,
    plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxActiveRunsPerAccount: 1, maxReservedActiveRuns: 5 } } }],
  });
  before(async () => {
    k = await boot();
    bob = await createAccount(k, 'bob');
    const made = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'carol', tenant: 'acme' } });
    carol = made.json<{ token: { token: string } }>().token.token;
    await uploadBundleAs(k, bob, 'ask', askUserFlow('ask'));
    await uploadBundleAs(k, carol, 'ask', askUserFlow('ask'));
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  const call = (method: string, path: string, token: string | undefined, payload?: unknown) =>
    k.inject({ method, url: `/api/gateway${path}`, ...(token ? { token } : {}), ...(payload === undefined ? {} : { payload }) });
  const start = (token: string, session = 's1') => call('POST', '/runs/start', token, { bundle_id: 'ask', session_id: session });
  const waitingRun = async (token: string, session?: string) => {
    const res = await start(token, session);
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    await until(async () => (await call('GET', `/runs/${id}`, token)).json<{ status: string }>().status, { ok: (s) => s === 'waiting', deadline: 60_000, what: `run ${id} to wait` });
    return id;
  };
  const planes = async (query = '') => {
    const res = await call('GET', `/admin/runtimes${query}`, k.adminToken);
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ items: Plane[]; count: number }>();
  };

  it('documents every new route in /openapi.json with its body and response schemas', async () => {
    const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody?: unknown; responses?: Record<string, { content?: unknown }> }>> }>();
    const expected: Array<[string, string, boolean]> = [
      ['/api/gateway/admin/runtime-config', 'get', false],
      ['/api/gateway/admin/runtime-config', 'put', true],
      ['/api/gateway/admin/runtimes', 'get', false],
      ['/api/gateway/admin/runtime-reservations', 'get', false],
      ['/api/gateway/admin/runtime-reservations/{account}', 'put', true],
      ['/api/gateway/admin/runtime-reservations/{account}', 'delete', false],
      ['/api/gateway/visualflows/{flow_id}/publish', 'post', true],
    ];
    for (const [path, method, hasBody] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).to.not.equal(undefined);
      if (hasBody) expect(op!.requestBody, `${method} ${path} body`).to.not.equal(undefined);
      expect(Object.values(op!.responses ?? {}).some((r) => r.content !== undefined), `${method} ${path} response schema`).to.equal(true);
    }
  });

  it('refuses a non-admin (403) and no token (401) on every route, and a non-admin cannot reserve for itself', async () => {
    for (const [method, path, body] of [['GET', '/admin/runtimes', undefined], ['GET', '/admin/runtimes?account=bob', undefined], ['GET', '/admin/runtime-reservations', undefined], ['PUT', '/admin/runtime-reservations/bob', { slots: 5 }], ['DELETE', '/admin/runtime-reservations/bob', undefined]] as const) {
      expect((await call(method, path, bob, body)).statusCode, `${method} ${path}`).to.equal(403);
      expect((await call(method, path, undefined, body)).statusCode, `${method} ${path} without a token`).to.equal(401);
    }
    expect((await call('GET', '/admin/runtime-reservations', k.adminToken)).json<{ items: unknown[] }>().items).to.deep.equal([]);
  });

  it("lists each account's plane with its counts and its cap, filtered by account and tenant", async () => {
    await waitingRun(bob);
    const bobPlane = (await planes('?account=bob')).items;
    expect(bobPlane).to.have.length(1);
    expect(bobPlane[0]).to.deep.include({ account: 'bob', tenant_id: 'default', exists: true, runs_total: 1, root_runs: 1, active_runs: 1, sessions: 1, private_bundles: 1, reservation: null });
    expect(bobPlane[0]!.runs).to.deep.equal({ running: 0, waiting: 1, completed: 0, failed: 0, cancelled: 0 });
    expect(bobPlane[0]!.cap).to.deep.equal({ max_active_runs: 1, default_max_active_runs: 1, source: 'setting', admin_exempt: false });
    await waitingRun(carol);
    expect((await planes()).items.map((p) => p.account)).to.include.members(['bob', 'carol']);
    expect((await planes('?tenant_id=acme')).items.map((p) => p.account)).to.deep.equal(['carol']);
    const unknown = await call('GET', '/admin/runtimes?account=nobody', k.adminToken);
    expect(unknown.statusCode).to.equal(404);
    expect(unknown.json<{ detail: { message: string } }>().detail.message).to.equal("Account 'nobody' does not exist (or is disabled) and has no runs on this gateway.");
  });

  it('honours a reservation in the active-run cap: past the default, up to the reserved slots, then 429 naming the reservation', async () => {
    // bob has one waiting run: the default cap (1) refuses a second.
    expect((await start(bob)).statusCode).to.equal(429);
    const reserved = await call('PUT', '/admin/runtime-reservations/bob', k.adminToken, { slots: 3, note: 'nightly import' });
    expect(reserved.statusCode, reserved.body).to.equal(200);
    expect(reserved.json()).to.deep.include({ account: 'bob', slots: 3, note: 'nightly import', reserved_by: 'admin' });
    await waitingRun(bob, 's2');
    await waitingRun(bob, 's3');
    const refused = await start(bob, 's4');
    expect(refused.statusCode).to.equal(429);
    expect(refused.json()).to.deep.equal({ detail: { reason_code: 'too_many_active_runs', message: "Account 'bob' already has 3 runs running or waiting, the 3 slots an admin reserved for it (/admin/runtime-reservations); cancel one or wait until one ends." } });
    // A schedule is a root run too.
    expect((await call('POST', '/runs/schedule', bob, { bundle_id: 'ask', start_at: 'now' })).statusCode).to.equal(429);
    // Another account keeps the default cap.
    expect((await start(carol)).statusCode).to.equal(429);
    const plane = (await planes('?account=bob')).items[0]!;
    expect(plane).to.deep.include({ active_runs: 3, sessions: 3 });
    expect(plane.cap).to.deep.include({ max_active_runs: 3, source: 'reservation' });
    expect(plane.reservation).to.deep.include({ slots: 3 });
  });

  it('refuses bad reservations: over limits.maxReservedActiveRuns (400 naming the setting), not a positive integer (400), unknown account (404)', async () => {
    const over = await call('PUT', '/admin/runtime-reservations/bob', k.adminToken, { slots: 6 });
    expect(over.statusCode).to.equal(400);
    expect(over.json<{ detail: { message: string; field: string } }>().detail).to.deep.include({ field: 'body.slots', message: 'slots 6 is more than the 5 one account may reserve (setting `limits.maxReservedActiveRuns` of the gateway-runs plugin).' });
    for (const slots of [0, -1, 1.5, '3', null]) expect((await call('PUT', '/admin/runtime-reservations/bob', k.adminToken, { slots })).statusCode, String(slots)).to.equal(400);
    expect((await call('PUT', '/admin/runtime-reservations/bob', k.adminToken, { slots: 2, extra: true })).statusCode).to.equal(400);
    expect((await call('PUT', '/admin/runtime-reservations/nobody', k.adminToken, { slots: 2 })).statusCode).to.equal(404);
    expect((await call('GET', '/admin/runtime-reservations', k.adminToken)).json<{ items: Array<{ account: string; slots: number }> }>().items).to.deep.equal([{ account: 'bob', slots: 3, note: 'nightly import', reserved_at: (await call('GET', '/admin/runtime-reservations', k.adminToken)).json<{ items: Array<{ reserved_at: string }> }>().items[0]!.reserved_at, reserved_by: 'admin' }]);
  });

  it('keeps a reservation across a restart, and releasing it brings the default cap back', async () => {
    await k.stop();
    k = await boot();
    expect((await call('GET', '/admin/runtime-reservations', k.adminToken)).json<{ items: Array<{ account: string; slots: number }> }>().items.map((r) => [r.account, r.slots])).to.deep.equal([['bob', 3]]);
    expect((await planes('?account=bob')).items[0]!.cap.max_active_runs).to.equal(3);
    const released = await call('DELETE', '/admin/runtime-reservations/bob', k.adminToken);
    expect(released.json()).to.deep.equal({ account: 'bob', released: true });
    expect((await call('DELETE', '/admin/runtime-reservations/bob', k.adminToken)).json()).to.deep.equal({ account: 'bob', released: false });
    expect((await planes('?account=bob')).items[0]!.cap).to.deep.include({ max_active_runs: 1, source: 'setting' });
    const refused = await start(bob, 's5');
    expect(refused.statusCode).to.equal(429);
    expect(refused.json<{ detail: { message: string } }>().detail.message).to.contain('limits.maxActiveRunsPerAccount');
  });
});
