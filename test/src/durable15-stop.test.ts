/**
 * A `stop_current` survives kill -9 (issue 15: nothing lost on a crash). The engine records that it
 * sends the cancel (`cancel_sent`) in the automation's transaction, then submits the cancel to the
 * runs plugin's durable command queue. A crash between the two left the stop recorded as sent while
 * no cancel was ever queued: the occurrence ran (or waited for a person) forever. The window is a
 * few microseconds and Keel has no failpoints, so the test leaves the data dir in exactly the state
 * such a crash leaves (edited with the server stopped, as other crash tests do) and restarts.
 */
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { askUserFlow } from './helpers/flow-builder.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, expectRowsMatchRuns, untilRows } from './helpers/durable15.js';

describe('durable15: stop_current across kill -9 and runner changes', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('kill -9 between recording the stop as sent and queuing its cancel: the engine sends the cancel again when it starts; the occurrence ends cancelled, with its run', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('ask', askUserFlow());
    const id = await api.create('stop-crash', 'ask', { source_id: 'manual', source_version: 1, config: {} });
    await api.command(id, 'automation.run_now');
    const [waiting] = await untilRows(api, id, 'the occurrence to wait for a person', (r) => r[0]?.status === 'waiting');
    await keel.stop('SIGKILL');

    // What the engine's step had committed when the crash hit: the stop, marked as sent; the cancel not queued.
    const env = open({ path: path.join(keel.dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
    const records = env.openDB<Record<string, unknown> & { current: Record<string, unknown> }, string>({ name: 'automations:automations' });
    const record = records.get(id)!;
    expect(record.current).to.deep.include({ run_id: waiting!.run_id, status: 'running', cancel_sent: false });
    await records.put(id, { ...record, current: { ...record.current, stop_command_id: 'stop-before-crash', cancel_sent: true } });
    await env.close();

    await keel.start();
    const [cancelled] = await untilRows(api, id, 'the stopped occurrence to end cancelled after the restart', (r) => r[0]?.status === 'cancelled', 45_000);
    expect(cancelled).to.deep.include({ index: 1, run_id: waiting!.run_id, attempts: 1 });
    expect((await keel.run(waiting!.run_id!)).status).to.equal('cancelled');
    await until(() => api.summary(id), { what: 'no current occurrence', ok: (s) => s.current_occurrence === null, deadline: 30_000 });
    expectRowsMatchRuns(await api.occurrences(id), await api.runs(id));
    expect(await until(() => api.summary(id), { what: 'the automation to stay active', ok: (s) => s.status === 'active' })).to.deep.include({ occurrence_count: 1 });
  });

  it('a stop_current accepted by a --no-runner server while no runner runs cancels the occurrence once a runner starts', async () => {
    await keel.stop();
    await keel.start(['--no-runner']);
    const runner = await keel.startRunner();
    const id = await api.create('stop-no-runner', 'ask', { source_id: 'manual', source_version: 1, config: {} });
    await api.command(id, 'automation.run_now');
    const [waiting] = await untilRows(api, id, 'the occurrence to wait for a person on the runner', (r) => r[0]?.status === 'waiting');
    await runner.stop('SIGKILL');
    await api.command(id, 'automation.stop_current');
    expect((await api.occurrences(id))[0]!.status, 'no engine: nothing applies the stop yet').to.equal('waiting');
    await keel.startRunner();
    const [cancelled] = await untilRows(api, id, 'the stop to be applied by the new runner', (r) => r[0]?.status === 'cancelled', 45_000);
    expect(cancelled).to.deep.include({ index: 1, run_id: waiting!.run_id, attempts: 1 });
    expect((await keel.run(waiting!.run_id!)).status).to.equal('cancelled');
    expectRowsMatchRuns(await api.occurrences(id), await api.runs(id));
  });
});
