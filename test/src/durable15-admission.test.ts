/**
 * kill -9 between recording an admission and launching its run (issue 15: crash-safe order). The
 * engine commits the occurrence as `admitted` (with its deterministic run id and frozen inputs),
 * then launches, then marks it `running`. Keel has no failpoints and these windows last
 * microseconds, so each test leaves the data dir exactly as a crash in the window leaves it (the
 * engine's own admission transition applied to the stopped server's LMDB, as other crash tests
 * edit a stopped data dir), then restarts `keel serve` on it.
 */
import path from 'node:path';
import { expect } from 'chai';
import { open, type RootDatabase } from 'lmdb';
import { engine, type AutomationRecord, type OccurrenceRecord } from '@keel/plugin-automations';
import type { PluginStorage } from '@keel/plugin-sdk';
import { runKeel } from './helpers/cli.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow, expectRowsMatchRuns, untilRows } from './helpers/durable15.js';

const manual = { source_id: 'manual', source_version: 1, config: {} };

/** The stopped server's LMDB as the automations plugin sees it (sub-databases `automations:<name>`). */
function automationsDb(dataDir: string): { env: RootDatabase; storage: PluginStorage } {
  const env = open({ path: path.join(dataDir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
  const storage = { openDB: (name: string, options: Record<string, unknown> = {}) => env.openDB({ ...options, name: `automations:${name}` }) } as unknown as PluginStorage;
  return { env, storage };
}

describe('durable15: kill -9 between an admission and its launch', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('admitted, no run yet: the restarted engine launches the admitted run id once; the occurrence completes with it', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('echo', echoFlow);
    const id = await api.create('admitted-no-run', 'echo', manual);
    await keel.stop();
    // The run_now recorded while no engine runs (the CLI), then the engine's admission committed — and the crash.
    const receipt = await runKeel(['automations', 'run-now', id, '--command-id', 'crash-window', '--config', keel.configFile, '--data-dir', keel.dataDir]);
    expect(receipt.code, receipt.stderr).to.equal(0);
    const { env, storage } = automationsDb(keel.dataDir);
    const records = storage.openDB<AutomationRecord, string>('automations');
    const log = new engine.OccurrenceLog(storage);
    let admitted: { run_id: string } | undefined;
    env.transactionSync(() => {
      const record = structuredClone(records.get(id)!);
      expect(record.pending.map((f) => f.kind)).to.deep.equal(['manual']);
      const [fire] = record.pending.splice(0, 1);
      const nowMs = Date.now();
      admitted = engine.admitFire(record, fire!, log, { nowMs, nowIso: new Date(nowMs).toISOString() }, { tick: null, scheduled_at: null, coalesced: null });
      void records.put(id, record);
    });
    await env.close();
    expect(admitted!.run_id).to.equal(engine.occurrenceRunId(id, 'manual:crash-window', 1));

    await keel.start();
    const [row] = await untilRows(api, id, 'the admitted occurrence to be launched and complete', (r) => r[0]?.status === 'completed');
    expect(row).to.deep.include({ index: 1, run_id: admitted!.run_id, attempts: 1 });
    expect(row!.answer).to.match(/\nfrom admitted-no-run$/);
    expect((await keel.run(admitted!.run_id)).status).to.equal('completed');
    const summary = await until(() => api.summary(id), { what: 'no current occurrence', ok: (s) => s.current_occurrence === null });
    expect(summary.occurrence_count, 'the queued run_now was admitted once').to.equal(1);
    expectRowsMatchRuns(await api.occurrences(id), await api.runs(id));
  });

  it('launched, not yet marked running: the restarted engine finds the run (no second one) and the occurrence completes with it', async () => {
    await api.upload('ask', askUserFlow());
    const id = await api.create('launched-not-marked', 'ask', manual);
    await api.command(id, 'automation.run_now');
    const [waiting] = await untilRows(api, id, 'the occurrence to wait for a person', (r) => r[0]?.status === 'waiting');
    await keel.stop('SIGKILL');
    // The run exists, but the crash hit before the engine recorded the attempt as running.
    const { env, storage } = automationsDb(keel.dataDir);
    const records = storage.openDB<AutomationRecord, string>('automations');
    const rows = storage.openDB<OccurrenceRecord, [string, number]>('occurrences');
    env.transactionSync(() => {
      const record = records.get(id)!;
      expect(record.current).to.deep.include({ run_id: waiting!.run_id, status: 'running' });
      void records.put(id, { ...record, current: { ...record.current!, status: 'admitted' } });
      void rows.put([id, 1], { ...rows.get([id, 1])!, status: 'admitted' });
    });
    await env.close();

    await keel.start();
    await untilRows(api, id, 'the occurrence to be found running again', (r) => r[0]?.status === 'waiting');
    const run = await keel.run(waiting!.run_id!);
    const answer = await keel.call('POST', '/api/gateway/commands', { command_id: 'answer-after-crash', run_id: waiting!.run_id, type: 'resume', payload: { wait_key: run.waiting!.wait_key, payload: { response: 'Ada' } } });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const [done] = await untilRows(api, id, 'the occurrence to complete', (r) => r[0]?.status === 'completed');
    expect(done).to.deep.include({ index: 1, run_id: waiting!.run_id, attempts: 1, answer: 'Ada' });
    expectRowsMatchRuns(await api.occurrences(id), await api.runs(id));
  });
});
