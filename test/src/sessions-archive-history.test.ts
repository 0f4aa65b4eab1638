import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { toolCallsFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

/**
 * The session archive history is bounded (`limits.maxArchiveHistoryPerAccount`): archiving and
 * unarchiving in a loop through the API keeps only the newest events of the account, and never
 * touches another account's.
 */
describe('sessions: the archive history is bounded per account', function () {
  this.timeout(300_000);
  let dataDir = '';
  let k: TestKernel | null = null;

  before(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'keel-archive-history-'));
  });
  after(async () => {
    await k?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps the newest maxArchiveHistoryPerAccount events of each account', async () => {
    k = await createTestKernel({ dataDir, plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, { plugin: gatewayRunsPlugin, config: { limits: { maxArchiveHistoryPerAccount: 3 } } }] });
    const tokens: Record<string, string> = { bob: await createAccount(k, 'bob'), eve: await createAccount(k, 'eve') };
    for (const [name, token] of Object.entries(tokens)) {
      await uploadBundleAs(k, token, 'tools', toolCallsFlow());
      const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: 'tools', session_id: `s-${name}`, input_data: { calls: [] } } });
      expect(started.statusCode, started.body).to.equal(200);
      const id = started.json<{ run_id: string }>().run_id;
      await until(async () => (await k!.inject({ url: `/api/gateway/runs/${id}`, token })).json<{ status: string }>().status, (s) => s === 'completed', 60_000);
    }
    for (let i = 0; i < 5; i++) {
      for (const action of ['archive', 'unarchive']) {
        const res = await k.inject({ method: 'POST', url: `/api/gateway/sessions/s-bob/${action}`, token: tokens.bob! });
        expect(res.statusCode, res.body).to.equal(200);
      }
    }
    const eve = await k.inject({ method: 'POST', url: '/api/gateway/sessions/s-eve/archive', token: tokens.eve! });
    expect(eve.statusCode, eve.body).to.equal(200);
    await k.stop();
    k = null;

    const env = open({ path: path.join(dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
    try {
      const events = [...env.openDB<{ event: string; session_id: string }, [string, string, string]>({ name: 'gateway-runs:session-archive-history' }).getRange()];
      const of = (account: string) => events.filter((e) => e.key[0] === account).map((e) => e.value.event);
      expect(of('bob'), 'the newest three of ten').to.deep.equal(['unarchived', 'archived', 'unarchived']);
      expect(of('eve')).to.deep.equal(['archived']);
    } finally {
      await env.close();
    }
  });
});
