/**
 * Attack (issue 13): the code sandbox's workers served calls strictly in arrival order, so one
 * account with many calls queued (its runs' code nodes, its simulations) kept every other account's
 * code waiting behind all of them, each holding a worker for the whole time budget. Now the queue
 * serves the account served longest ago first: Bob's call waits for at most the call running now.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { until } from './helpers/gateway-runs.js';
import { createAccount } from './helpers/accounts.js';

const LOOP = 'def transform(_input):\n    while True:\n        pass';

describe("attack i13: one account's queued code calls ahead of everyone else's", function () {
  this.timeout(600_000);
  let k: TestKernel;
  const tokens: Record<string, string> = {};
  const simulate = (account: string, code: string) => k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: tokens[account], payload: { code } });

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: 3_000, maxWorkers: 1, maxSimulatePerAccount: 4 } }] });
    for (const account of ['eve', 'bob']) {
      tokens[account] = await createAccount(k, account);
    }
    expect((await simulate('bob', 'def transform(_input):\n    return 1')).statusCode).to.equal(200);
  });
  after(() => k?.stop());

  it("serves bob's call before the rest of eve's queue", async () => {
    const done: boolean[] = [false, false, false, false];
    const flood = [0, 1, 2, 3].map((i) => simulate('eve', LOOP).then((res) => {
      done[i] = true;
      return res;
    }));
    // Once eve's first call answered, her others have long been queued: bob comes after them.
    await until(() => done.some(Boolean), { what: "eve's first call to answer", deadline: 120_000 });
    const bob = await simulate('bob', 'def transform(_input):\n    return "bob ran"');
    const eveDoneWhenBobAnswered = done.filter(Boolean).length;
    expect(bob.json()).to.deep.include({ success: true, output: 'bob ran' });
    // At most eve's call that was running when bob's arrived finished before it.
    expect(eveDoneWhenBobAnswered).to.be.at.most(2);
    for (const res of await Promise.all(flood)) expect(res.json<{ error: string }>().error).to.match(/ran longer than its 3000 ms budget/);
  });
});
