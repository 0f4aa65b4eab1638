/**
 * A retry waiting for its backoff survives kill -9 (issue 15: state in LMDB): the backoff's
 * `retry_at` is stored, so the restarted engine starts the next attempt once (deterministic run
 * id `<attempt-1 name>:a2`), and the last failure asks for attention once.
 */
import { expect } from 'chai';
import { engine } from '@keel/plugin-automations';
import { failingFlow } from './helpers/automations-engine.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, untilPassed, untilRows } from './helpers/durable15.js';

describe('durable15: kill -9 while an occurrence waits for its retry', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('the restarted engine runs the retry once, then fails the occurrence and asks for attention once', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('broken', failingFlow);
    const id = await api.create('retry-crash', 'broken', { source_id: 'manual', source_version: 1, config: {} }, { retry: { max_attempts: 2, backoff: { initial: '3s', factor: 2, max: '10m' } } });
    const { command_id: commandId } = await api.command(id, 'automation.run_now') as { command_id: string };
    const [backoff] = await untilRows(api, id, 'attempt 1 to fail and wait for its retry', (r) => r[0]?.status === 'backoff');
    expect(backoff).to.deep.include({ attempts: 1, run_id: engine.occurrenceRunId(id, `manual:${commandId}`, 1) });
    await keel.stop('SIGKILL');
    await untilPassed(Date.now(), 3_500); // the retry came due while the server was down
    await keel.start();

    const [failed] = await untilRows(api, id, 'the retry to run and the occurrence to fail', (r) => r[0]?.status === 'failed');
    expect(failed).to.deep.include({ index: 1, attempts: 2, run_id: engine.occurrenceRunId(id, `manual:${commandId}`, 2) });
    expect(failed!.failure).to.deep.include({ reason_code: 'occurrence_failed', attempts: 2 });
    const runs = await api.runs(id);
    expect(runs.map((r) => r.run_id).sort(), 'one run per attempt').to.deep.equal([engine.occurrenceRunId(id, `manual:${commandId}`, 1), engine.occurrenceRunId(id, `manual:${commandId}`, 2)].sort());
    expect(runs.every((r) => r.status === 'failed' && r.occurrence_index === 1)).to.equal(true);
    const attention = (await keel.call('GET', `/api/gateway/automations/${id}/attention`)).body.items as Array<{ kind: string; index: number }>;
    expect(attention.map((a) => [a.kind, a.index])).to.deep.equal([['failure', 1]]);
    expect(await until(() => api.summary(id), { what: 'nothing current', ok: (s) => s.current_occurrence === null })).to.deep.include({ status: 'active', occurrence_count: 1 });
  });
});
