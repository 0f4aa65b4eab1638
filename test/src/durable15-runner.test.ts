/**
 * The scheduler runs only in the process that executes runs (issue 15 item 6): `keel serve
 * --no-runner` beside `keel runner` on one data dir, and two `keel serve` on one data dir (the
 * second finds the runner lock held). Commands accepted by a server that runs no engine reach the
 * engine of the other process through LMDB within `scheduler.pollMs`; a runner killed and replaced
 * continues the schedule without duplicates; a server alone fires nothing.
 */
import { expect } from 'chai';
import { startServer, type ServerProcess } from './helpers/cli.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow, expectRowsMatchRuns, expectTicksAccounted, untilPassed, untilRows, type DurableApi } from './helpers/durable15.js';

const every = (interval: string) => ({ source_id: 'schedule', source_version: 1, config: { every: interval } });
const manual = { source_id: 'manual', source_version: 1, config: {} };

async function settle(api: DurableApi, id: string): Promise<void> {
  await api.command(id, 'automation.pause');
  await until(() => api.summary(id), { what: `automation ${id} to have no current occurrence`, ok: (s) => s.current_occurrence === null, deadline: 60_000, every: 200 });
}

describe('durable15: keel serve --no-runner with keel runner on the same data dir', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('the server alone fires nothing; the runner fires, runs the server\'s run_now/pause/resume, and a replacement runner continues the schedule without duplicates', async () => {
    keel.configure(durablePlugins(200));
    await keel.start(['--no-runner']);
    await api.upload('echo', echoFlow);
    const scheduled = await api.create('runner-schedule', 'echo', every('1s'));
    const commanded = await api.create('runner-commands', 'echo', every('1h'));
    const onDemand = await api.create('runner-manual', 'echo', manual);
    expect((await api.command(onDemand, 'automation.run_now')).accepted).to.equal(true);

    // No engine runs without a runner: ticks come due (every second) and a run_now is queued, yet nothing is admitted.
    await untilPassed(Date.now(), 3_000);
    for (const id of [scheduled, commanded, onDemand]) {
      expect(await api.occurrences(id), 'no occurrence without a runner').to.deep.equal([]);
      expect((await api.summary(id)).current_occurrence).to.equal(null);
    }
    expect(await api.runs(scheduled)).to.deep.equal([]);

    const runner = await keel.startRunner();
    // The queued run_now and the schedule's first fire (with the ticks missed before it, coalesced) run in the runner.
    const [manualRow] = await untilRows(api, onDemand, 'the queued run_now to run on the runner', (r) => r.length === 1 && r[0]!.status === 'completed');
    expect(manualRow!.trigger.source_id).to.equal('manual');
    const firstFires = await untilRows(api, scheduled, 'the schedule to fire on the runner', (r) => r.some((row) => row.status === 'completed'));
    expect(firstFires[0]!.coalesced, 'the ticks due before the runner started are accounted for').to.deep.include({ first_tick: 0, reason: 'server_down' });
    await untilRows(api, commanded, 'the hourly schedule\'s first tick', (r) => r.length === 1 && r[0]!.status === 'completed');

    // pause (recorded by the server), then run_now while paused: the runner runs it and the automation stays paused.
    await api.command(commanded, 'automation.pause');
    await api.command(commanded, 'automation.run_now');
    const paused = await untilRows(api, commanded, 'the run_now while paused to run', (r) => r.length === 2 && r[1]!.status === 'completed');
    expect(paused[1]!.trigger.source_id).to.equal('manual');
    expect((await api.summary(commanded)).status).to.equal('paused');
    // revise to a 1 s schedule would be another command; resume re-arms at the next hourly tick: nothing fires at once.
    await api.command(commanded, 'automation.resume');
    expect((await api.summary(commanded)).status).to.equal('active');

    // kill -9 of the runner mid-schedule, a while without any runner, then another runner.
    await runner.stop('SIGKILL');
    await untilPassed(Date.now(), 2_500);
    const countBefore = (await api.summary(scheduled)).occurrence_count;
    await keel.startRunner();
    await until(() => api.summary(scheduled), { what: 'the new runner to fire twice', ok: (s) => s.occurrence_count >= countBefore + 2, deadline: 60_000, every: 200 });
    await settle(api, scheduled);
    const rows = await api.occurrences(scheduled);
    expect(rows.filter((r) => r.status !== 'completed'), 'every occurrence ended').to.deep.equal([]);
    expectRowsMatchRuns(rows, await api.runs(scheduled));
    const reasons = expectTicksAccounted(rows);
    expect(reasons.filter((r) => r === 'server_down').length, 'both stretches without a runner are named').to.be.at.least(2);
    for (const id of [commanded, onDemand]) expectRowsMatchRuns(await api.occurrences(id), await api.runs(id));
  });
});

describe('durable15: two keel serve on one data dir', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  let second: ServerProcess | undefined;
  after(async () => {
    await second?.stop('SIGKILL');
    await keel.dispose();
  });

  it('the second refuses the runner lock and fires nothing; its commands reach the first one\'s engine; only that engine fires (no duplicate)', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('echo', echoFlow);
    second = await startServer(['--config', keel.configFile, '--data-dir', keel.dataDir]);
    await second.waitFor(/another runner holds the lock/i);
    const viaSecond = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${second!.url}/api/gateway${url}`, { method, headers: { authorization: `Bearer ${keel.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const started = await viaSecond('POST', '/runs/start', { bundle_id: 'echo', input_data: { prompt: 'hi' } });
    expect(started.body.runner_warning, 'the second server runs no runner').to.be.a('string').and.match(/Another runner \(pid \d+\) holds/);

    // Created and commanded through the second server: the first server's engine admits them.
    const created = await viaSecond('POST', '/automations', { request_id: 'two-servers', title: 'Two servers', target: { bundle_ref: 'echo@1.0.0', flow_id: 'echo', input_data: { prompt: 'tick' } }, trigger: every('1s') });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    const id = created.body.automation_id as string;
    const onDemand = (await viaSecond('POST', '/automations', { request_id: 'two-servers-manual', title: 'Two servers manual', target: { bundle_ref: 'echo@1.0.0', flow_id: 'echo', input_data: { prompt: 'now' } }, trigger: manual })).body.automation_id as string;
    expect((await viaSecond('POST', `/automations/${onDemand}/commands`, { command_id: 'second-run-now', type: 'automation.run_now' })).status).to.equal(200);
    await untilRows(api, onDemand, 'the run_now sent to the second server to run', (r) => r.length === 1 && r[0]!.status === 'completed');
    await until(() => api.summary(id), { what: 'the schedule to fire four times', ok: (s) => s.occurrence_count >= 4, deadline: 60_000, every: 200 });

    // The second server's occurrences route reads the same rows.
    const seenBySecond = await viaSecond('GET', `/automations/${id}/occurrences`);
    expect((seenBySecond.body.items as unknown[]).length).to.be.at.least(4);

    // kill -9 of the first: the second keeps serving but runs no engine — nothing is admitted, not even its own run_now.
    await keel.stop('SIGKILL');
    const frozen = (await viaSecond('GET', `/automations/${id}`)).body.summary as { occurrence_count: number };
    expect((await viaSecond('POST', `/automations/${onDemand}/commands`, { command_id: 'second-run-now-2', type: 'automation.run_now' })).status).to.equal(200);
    await untilPassed(Date.now(), 3_000);
    expect(((await viaSecond('GET', `/automations/${id}`)).body.summary as { occurrence_count: number }).occurrence_count, 'no fire without the engine').to.equal(frozen.occurrence_count);
    expect(((await viaSecond('GET', `/automations/${onDemand}/occurrences`)).body.items as unknown[]).length, 'the run_now waits for an engine').to.equal(1);

    // The first restarted takes the dead runner's lock over: the queued run_now runs and the schedule goes on.
    await keel.start();
    await untilRows(api, onDemand, 'the queued run_now to run after the restart', (r) => r.length === 2 && r[1]!.status === 'completed');
    await until(() => api.summary(id), { what: 'the schedule to fire after the restart', ok: (s) => s.occurrence_count >= frozen.occurrence_count + 2, deadline: 60_000, every: 200 });
    await settle(api, id);
    const rows = await api.occurrences(id);
    expectRowsMatchRuns(rows, await api.runs(id));
    expect(expectTicksAccounted(rows), 'the time without a runner is named').to.include('server_down');
    expectRowsMatchRuns(await api.occurrences(onDemand), await api.runs(onDemand));
  });
});
