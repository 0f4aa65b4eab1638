/**
 * Attack (issue 15): gateway-runs' command ids are one namespace for every account, and the launcher's
 * cancel (what `automation.stop_current` does) queued its cancel under `automation-stop:<the client's
 * command id>`. Another account that queued any command of its own under that id first made the
 * owner's stop a silent "duplicate": the occurrence's run was never cancelled. The same squatting
 * dropped an owner's own POST /commands (answered `duplicate: true`, nothing queued).
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

describe("attack15: another account's command ids", function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann: ReturnType<typeof automationsApi>;
  let mal: ReturnType<typeof automationsApi>;
  let malRun = '';

  before(async () => {
    k = await automationsKernel(clock);
    const annToken = await createAccount(k, 'ann');
    const malToken = await createAccount(k, 'mal');
    await uploadBundleAs(k, annToken, 'ask', askUserFlow());
    await uploadBundleAs(k, malToken, 'echo', echoFlow);
    ann = automationsApi(() => k, annToken);
    mal = automationsApi(() => k, malToken);
    const started = await mal.call('POST', '/runs/start', { bundle_id: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } });
    malRun = started.json<{ run_id: string }>().run_id;
    await until(async () => (await mal.call('GET', `/runs/${malRun}`)).json<{ status: string }>().status, { what: "mal's run to end", ok: (s) => s === 'completed' });
  });
  after(async () => k?.stop());

  it("stop_current cancels the occurrence even when another account queued a command under the id the cancel would use", async () => {
    const squat = await mal.call('POST', '/commands', { command_id: 'automation-stop:stop-1', run_id: malRun, type: 'pause' });
    expect(squat.statusCode, squat.body).to.equal(200);
    const id = await ann.create({ request_id: 'asker', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    await ann.command(id, 'automation.run_now');
    await ann.untilOccurrences(id, 'the occurrence to wait for a person', (rows) => rows[0]?.status === 'waiting');
    const stopped = await ann.call('POST', `/automations/${id}/commands`, { command_id: 'stop-1', type: 'automation.stop_current' });
    expect(stopped.statusCode, stopped.body).to.equal(200);
    const rows = await ann.untilOccurrences(id, 'the occurrence to be cancelled', (r) => r[0]?.status === 'cancelled', 30_000);
    expect((await ann.call('GET', `/runs/${rows[0]!.run_id}`)).json<{ status: string }>().status).to.equal('cancelled');
  });

  it("a POST /commands under a command_id another account used is refused (409), never answered as the other's duplicate", async () => {
    const asked = await ann.call('POST', '/runs/start', { bundle_id: 'ask', flow_id: 'ask', input_data: {} });
    const annRun = asked.json<{ run_id: string }>().run_id;
    await until(async () => (await ann.call('GET', `/runs/${annRun}`)).json<{ status: string }>().status, { what: "ann's run to wait", ok: (s) => s === 'waiting' });
    const squat = await mal.call('POST', '/commands', { command_id: 'cancel-1', run_id: malRun, type: 'pause' });
    expect(squat.statusCode, squat.body).to.equal(200);
    const mine = await ann.call('POST', '/commands', { command_id: 'cancel-1', run_id: annRun, type: 'cancel' });
    expect(mine.statusCode, mine.body).to.equal(409);
    expect(mine.body).not.to.contain(malRun);
    // Under its own id it applies; the same command again is its own duplicate.
    const applied = await ann.call('POST', '/commands', { command_id: 'cancel-2', run_id: annRun, type: 'cancel' });
    expect(applied.json<{ accepted: boolean }>().accepted, applied.body).to.equal(true);
    const again = await ann.call('POST', '/commands', { command_id: 'cancel-2', run_id: annRun, type: 'cancel' });
    expect(again.json<{ duplicate: boolean }>().duplicate, again.body).to.equal(true);
    await until(async () => (await ann.call('GET', `/runs/${annRun}`)).json<{ status: string }>().status, { what: "ann's run to be cancelled", ok: (s) => s === 'cancelled' });
  });
});
