import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { toolCallsFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

/**
 * Issue 14 item 1 / seed §7: another account's session answers 404 `{detail: {reason_code:
 * "session_not_found", message: "Session <id> does not exist."}}` on every session route that reads
 * or changes a session (archive, unarchive, its artifacts, an artifact search scoped to it) — the
 * same body as an id no account has, so nothing tells whether the session exists elsewhere.
 */
describe('sessions: another account\'s session is "session_not_found" on every session route (issue 14 item 1)', function () {
  this.timeout(300_000);
  let k: TestKernel;
  let bob = '';
  let eve = '';
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, artifactsPlugin] });
    bob = await createAccount(k, 'bob');
    eve = await createAccount(k, 'eve');
    await uploadBundleAs(k, bob, 'tools', toolCallsFlow());
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: bob, payload: { bundle_id: 'tools', session_id: 'bob-session', input_data: { calls: [] } } });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    await until(async () => (await k.inject({ url: `/api/gateway/runs/${id}`, token: bob })).json<{ status: string }>().status, (s) => s === 'completed', 60_000);
  });
  after(async () => {
    await k?.stop();
  });

  const routes = (id: string) => [
    { method: 'POST', url: `/api/gateway/sessions/${id}/archive` },
    { method: 'POST', url: `/api/gateway/sessions/${id}/unarchive` },
    { method: 'GET', url: `/api/gateway/sessions/${id}/artifacts` },
    { method: 'GET', url: `/api/gateway/artifacts/search?scope=session&session_id=${id}` },
  ];

  it("answers the owner, and answers another account's session exactly like one that exists nowhere", async () => {
    for (const r of routes('bob-session')) {
      const own = await k.inject({ ...r, token: bob });
      expect(own.statusCode, `${r.method} ${r.url} as owner: ${own.body}`).to.equal(200);
    }
    for (const id of ['bob-session', 'no-such-session']) {
      for (const r of routes(id)) {
        const res = await k.inject({ ...r, token: eve });
        expect(res.statusCode, `${r.method} ${r.url}: ${res.body}`).to.equal(404);
        expect(res.json(), `${r.method} ${r.url}`).to.deep.equal({ detail: { reason_code: 'session_not_found', message: `Session ${id} does not exist.` } });
      }
    }
  });
});
