/**
 * An event trigger fires each event once per automation, also across kill -9 (issue 15): the runs
 * plugin applies commands at least once (its cursor is saved after the command), so a crash before
 * that save re-applies the `emit_event` after the restart. The test leaves the data dir as such a
 * crash leaves it (the cursor moved back before the emit, edited with the server stopped) and checks
 * the re-applied event fires nothing more, while a new event still fires.
 */
import path from 'node:path';
import { expect } from 'chai';
import { open } from 'lmdb';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow, expectRowsMatchRuns, untilRows } from './helpers/durable15.js';

describe('durable15: an emit_event applied again after kill -9', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('fires the event-triggered automation once; the next event fires it again', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('echo', echoFlow);
    const id = await api.create('on-build', 'echo', { source_id: 'event', source_version: 1, config: { name: 'build.done' } });
    const anchor = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'echo', session_id: 'builds', input_data: { prompt: 'x' } })).body.run_id as string;
    await until(() => keel.run(anchor), { what: 'the anchor run to end', ok: (r) => r.status === 'completed', deadline: 60_000 });
    const emit = async (commandId: string) => {
      const res = await keel.call('POST', '/api/gateway/commands', { command_id: commandId, run_id: anchor, type: 'emit_event', payload: { name: 'build.done', payload: { ok: true } } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body as { seq: number };
    };
    const { seq } = await emit('emit-before-crash');
    expect(seq).to.be.a('number');
    await untilRows(api, id, 'the event occurrence', (r) => r.length === 1 && r[0]!.status === 'completed');
    await keel.stop('SIGKILL');

    // As if the crash hit after the event was delivered but before the runner saved its cursor.
    const env = open({ path: path.join(keel.dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
    const cursor = env.openDB<number, string>({ name: 'gateway-runs:command-cursor' });
    expect(cursor.get('cursor')).to.be.at.least(seq);
    await cursor.put('cursor', seq - 1);
    await env.close();

    await keel.start();
    // Commands are applied in order: once the next event fired, the re-applied one was handled before it.
    await emit('emit-after-restart');
    const rows = await untilRows(api, id, 'the next event to fire', (r) => r.length >= 2 && r.every((row) => row.status === 'completed'));
    const eventOf = async (runId: string) => {
      const body = (await keel.call('GET', `/api/gateway/runs/${runId}/input_data`)).body;
      return ((body.input_data ?? body) as { trigger: { event: { event_id: string } } }).trigger.event.event_id;
    };
    expect(await Promise.all(rows.map((r) => eventOf(r.run_id!))), 'each event fired once').to.deep.equal(['emit-before-crash', 'emit-after-restart']);
    expectRowsMatchRuns(rows, await api.runs(id));
  });
});
