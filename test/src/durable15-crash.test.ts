/**
 * The scheduler survives kill -9 of `keel serve` (issue 15 items 5 and 6: state in LMDB, nothing
 * lost on a crash), with real processes and real time (a real process takes no injected clock):
 * schedules of a few seconds, conditions awaited with deadlines. After each restart on the same
 * data dir every occurrence completes exactly once (one run, the row matches it), the schedule
 * goes on, and every tick due across the downtime is accounted for per misfire policy.
 */
import { expect } from 'chai';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow, expectRowsMatchRuns, expectTicksAccounted, sleeperFlow, untilPassed, untilRows, type DurableApi } from './helpers/durable15.js';

const every = (interval: string) => ({ source_id: 'schedule', source_version: 1, config: { every: interval } });

/** Pauses the automation and waits until nothing is current, so its rows stop moving before the checks. */
async function settle(api: DurableApi, id: string): Promise<void> {
  await api.command(id, 'automation.pause');
  await until(() => api.summary(id), { what: `automation ${id} to have no current occurrence`, ok: (s) => s.current_occurrence === null, deadline: 60_000, every: 200 });
}

describe('durable15: kill -9 of keel serve while an occurrence waits', function () {
  this.timeout(180_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('the occurrence resumes and completes once with its run; the ticks missed meanwhile are one coalesced occurrence (server_down); the schedule goes on', async () => {
    keel.configure(durablePlugins());
    await keel.start();
    await api.upload('sleeper', sleeperFlow(4));
    const id = await api.create('sleeps', 'sleeper', every('2s'));

    const [first] = await untilRows(api, id, 'occurrence 1 to run (its run waits)', (rows) => rows.length === 1 && rows[0]!.status === 'running');
    await until(() => keel.run(first!.run_id!), { what: 'the run of occurrence 1 to wait', ok: (r) => r.status === 'waiting', deadline: 60_000 });
    await keel.stop('SIGKILL');
    const downAt = Date.now();
    // Down long enough for its wait to pass and for two more ticks to come due.
    await untilPassed(downAt, 6_000);
    await keel.start();

    const rows = await untilRows(api, id, 'occurrence 1 to complete and two more after the restart', (r) => r[0]?.status === 'completed' && r.filter((row) => row.status === 'completed').length >= 3, 90_000);
    expect(rows[0]).to.deep.include({ index: 1, run_id: first!.run_id, attempts: 1 });
    expect(rows[0]!.answer).to.match(/^\[Trigger schedule@1 · occurrence 1 · fired [^\]]+\]\nfrom sleeps$/);
    expect((await keel.run(first!.run_id!)).status).to.equal('completed');
    await settle(api, id);

    const final = await api.occurrences(id);
    expectRowsMatchRuns(final, await api.runs(id));
    const reasons = expectTicksAccounted(final);
    expect(final[1]!.coalesced, 'occurrence 2 stands for the ticks missed while the server was down').to.deep.include({ first_tick: 1, reason: 'server_down' });
    expect(final[1]!.coalesced!.missed_count).to.be.at.least(1);
    expect(reasons.filter((r) => r !== 'server_down' && r !== 'occurrence_running'), 'coalesce gives only these reasons').to.deep.equal([]);
  });
});

describe('durable15: kill -9 of keel serve at arbitrary points of the firing, under each misfire policy', function () {
  this.timeout(300_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('every occurrence ran once (one run each, rows matching runs) and every tick is fired, coalesced or skipped with a reason', async () => {
    keel.configure(durablePlugins(100));
    await keel.start();
    await api.upload('echo', echoFlow);
    const ids = {
      coalesce: await api.create('chaos-coalesce', 'echo', every('1s'), { misfire: 'coalesce' }),
      skip: await api.create('chaos-skip', 'echo', every('1s'), { misfire: 'skip' }),
      all: await api.create('chaos-all', 'echo', every('1s'), { misfire: 'all' }),
    };
    const counts = async () => Promise.all(Object.values(ids).map(async (id) => (await api.summary(id)).occurrence_count));
    // Each round: wait until every automation admitted something in this process, then kill -9 at
    // once — mid-firing of whichever automation is admitting, launching or ending at that moment.
    for (let round = 0; round < 4; round++) {
      const before = await counts();
      await until(counts, { what: `each automation to fire in round ${round}`, ok: (now) => now.every((n, i) => n > before[i]!), deadline: 60_000, every: 50 });
      await keel.stop('SIGKILL');
      if (round % 2 === 1) await untilPassed(Date.now(), 2_500); // and some rounds long enough to miss ticks
      await keel.start();
    }
    const afterRestart = await counts();
    await until(counts, { what: 'each automation to fire twice after the last restart', ok: (now) => now.every((n, i) => n >= afterRestart[i]! + 2), deadline: 60_000, every: 100 });
    for (const id of Object.values(ids)) await settle(api, id);

    for (const [policy, id] of Object.entries(ids)) {
      const rows = await api.occurrences(id);
      expect(rows.filter((r) => !['completed', 'skipped'].includes(r.status)), `${policy}: every occurrence ended`).to.deep.equal([]);
      expectRowsMatchRuns(rows, await api.runs(id));
      const reasons = expectTicksAccounted(rows);
      if (policy === 'all') expect(rows.filter((r) => r.coalesced !== null && r.status !== 'skipped'), 'all: no coalesced fire').to.deep.equal([]);
      if (policy === 'coalesce') expect(rows.filter((r) => r.status === 'skipped'), 'coalesce: nothing skipped').to.deep.equal([]);
      if (policy !== 'all') expect(reasons, `${policy}: the downtime is named`).to.include('server_down');
    }
  });
});
