/**
 * Attack (issue 13): `POST /visualflows/code/simulate` takes any signed-in account's Python into the
 * same sandbox workers the runs' `code` nodes use, and the pool queues without bound. One account
 * firing many endless loops kept every account's code waiting (each call holds a worker for the
 * whole time budget) and grew the server's queue. Now an account has at most
 * `maxSimulatePerAccount` simulations queued or running; past it the route answers 429.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { createAccount } from './helpers/accounts.js';

const LOOP = 'def transform(_input):\n    while True:\n        pass';

describe('attack i13: a flood of code simulations from one account', function () {
  this.timeout(600_000);
  let k: TestKernel;
  const tokens: Record<string, string> = {};

  const simulate = (account: string, code: string) =>
    k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: tokens[account], payload: { code } });

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: 3_000, maxWorkers: 2 } }] });
    for (const account of ['eve', 'bob']) {
      tokens[account] = await createAccount(k, account);
    }
    // Warm the workers so the calls below are the code's own.
    expect((await simulate('bob', 'def transform(_input):\n    return 1')).statusCode).to.equal(200);
  });
  after(() => k?.stop());

  it("refuses an account's simulation past maxSimulatePerAccount with 429, while another account's still runs", async () => {
    const flood = Array.from({ length: 6 }, () => simulate('eve', LOOP));
    const bob = await simulate('bob', 'def transform(_input):\n    return "bob ran"');
    expect(bob.statusCode, bob.body).to.equal(200);
    expect(bob.json()).to.deep.include({ success: true, output: 'bob ran' });
    const answers = await Promise.all(flood);
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses).to.deep.equal([200, 200, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(refused.json<{ detail: string }>().detail).to.equal("Account 'eve' already has 2 code simulations queued or running, the most one account may have at once (the code plugin's maxSimulatePerAccount); wait for one to answer.");
    for (const answered of answers.filter((a) => a.statusCode === 200)) expect(answered.json<{ error: string }>().error).to.match(/ran longer than its 3000 ms budget/);
    // Once they answered, eve may simulate again.
    const again = await simulate('eve', 'def transform(_input):\n    return 2');
    expect(again.statusCode, again.body).to.equal(200);
  });
});
