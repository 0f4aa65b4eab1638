/**
 * An `emit_event` is not lost by a kill -9 while the automations are told about it (issue 15:
 * nothing lost on a crash). The runs plugin saves its command cursor after applying a command; the
 * event listeners (one store transaction per matching automation) must have recorded the event
 * before that save, or a crash in between leaves the later automations never fired — the command is
 * not applied again. Many matching automations make that stretch long enough to crash inside it.
 */
import { expect } from 'chai';
import { ServedKeel, until } from './helpers/gateway-runs.js';
import { durableApi, durablePlugins, echoFlow } from './helpers/durable15.js';

const COUNT = 150;

describe('durable15: kill -9 while an emitted event fans out to its automations', function () {
  this.timeout(300_000);
  const keel = new ServedKeel();
  const api = durableApi(keel);
  after(() => keel.dispose());

  it('every matching automation fires once for the event after the restart', async () => {
    keel.configure(durablePlugins(200));
    await keel.start();
    await api.upload('echo', echoFlow);
    const ids = new Set<string>();
    for (let n = 0; n < COUNT; n++) ids.add(await api.create(`fan-${n}`, 'echo', { source_id: 'event', source_version: 1, config: { name: 'fan.out' } }));
    const anchor = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'echo', input_data: { prompt: 'x' } })).body.run_id as string;
    await until(() => keel.run(anchor), { what: 'the anchor run to end', ok: (r) => r.status === 'completed', deadline: 60_000 });
    type Item = { automation_id: string; occurrence_count: number; current_occurrence: unknown };
    const fired = async () => {
      const items = (await keel.call('GET', '/api/gateway/automations?limit=200')).body.items as Item[];
      return items.filter((a) => ids.has(a.automation_id) && (a.occurrence_count > 0 || a.current_occurrence !== null)).length;
    };

    const emitted = await keel.call('POST', '/api/gateway/commands', { command_id: 'fan-out-1', run_id: anchor, type: 'emit_event', payload: { name: 'fan.out', payload: {} } });
    expect(emitted.status, JSON.stringify(emitted.body)).to.equal(200);
    const firedBefore = await until(fired, { what: 'the event to reach an automation', ok: (n) => n > 0, deadline: 60_000, every: 5 });
    await keel.stop('SIGKILL');
    await keel.start();

    const counts = async () => {
      const items = (await keel.call('GET', '/api/gateway/automations?limit=200')).body.items as Item[];
      return items.filter((a) => ids.has(a.automation_id)).map((a) => a.occurrence_count);
    };
    const final = await until(counts, { what: `each of the ${COUNT} automations to fire once (${firedBefore} had before the crash)`, ok: (c) => c.length === COUNT && c.every((n) => n === 1), deadline: 90_000, every: 500 });
    expect(final.every((n) => n === 1)).to.equal(true);
  });
});
