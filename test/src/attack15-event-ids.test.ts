/**
 * Attack (issue 15): an emitted event's id is the client's (`payload.event_id`, any length). The
 * scheduler keeps "this event fired this automation" under an LMDB key made of it, and a key past
 * LMDB's bound (1978 bytes) threw inside the step: the event was lost for every automation it
 * matched, each step logged a failure. A long id is now kept by its digest; each event still fires once.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { until } from './helpers/gateway-runs.js';

describe('attack15: emitted events with long ids', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;

  before(async () => {
    k = await automationsKernel(clock);
  });
  after(async () => k?.stop());

  it('an event id past the storage key bound still fires the automation, once', async () => {
    const token = await createAccount(k, 'ann');
    await uploadBundleAs(k, token, 'echo', echoFlow);
    const api = automationsApi(() => k, token);
    const id = await api.create({ request_id: 'on-go', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'go' } }, trigger: { source_id: 'event', source_version: 1, config: { name: 'go' } } });
    const started = await api.call('POST', '/runs/start', { bundle_id: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } });
    const runId = started.json<{ run_id: string }>().run_id;
    await until(async () => (await api.call('GET', `/runs/${runId}`)).json<{ status: string }>().status, { what: 'the run to end', ok: (s) => s === 'completed' });
    const longId = 'e'.repeat(3000);
    const emit = (commandId: string) => api.call('POST', '/commands', { command_id: commandId, run_id: runId, type: 'emit_event', payload: { name: 'go', event_id: longId } });
    expect((await emit('emit-1')).statusCode).to.equal(200);
    await api.untilOccurrences(id, 'the event to fire the automation', (rows) => rows[0]?.status === 'completed', 30_000);
    // The same event (same id) again fires nothing more; another id fires again.
    expect((await emit('emit-2')).statusCode).to.equal(200);
    const other = await api.call('POST', '/commands', { command_id: 'emit-3', run_id: runId, type: 'emit_event', payload: { name: 'go', event_id: `${longId}-2` } });
    expect(other.statusCode).to.equal(200);
    const rows = await api.untilOccurrences(id, 'the second event', (r) => r.length === 2 && r[0]!.status === 'completed', 30_000);
    expect(rows.map((row) => row.index)).to.deep.equal([2, 1]);
    // Occurrence 2 is the second event's (the repeat of the first fired nothing, and came first).
    const inputs = (await api.call('GET', `/runs/${rows[0]!.run_id}/input_data`)).json<Record<string, unknown>>();
    const trigger = ((inputs.input_data ?? inputs) as { trigger: { event: { event_id: string } } }).trigger;
    expect(trigger.event.event_id).to.equal(`${longId}-2`);
  });
});
