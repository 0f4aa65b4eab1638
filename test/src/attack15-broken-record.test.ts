/**
 * Attack (issue 15): a stored automation the scheduler cannot step (a record of another version, a
 * half-written one) must not stop the others. Its step threw and it was only held back in memory
 * while its `wake_at` stayed due: the wake index handed it to every look first, so `scheduler.batchSize`
 * such records starved every other automation of the server.
 */
import path from 'node:path';
import { open } from 'lmdb';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { tempDir } from './helpers/paths.js';

describe('attack15: a record the scheduler cannot step', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  const data = tempDir();
  let k: TestKernel | undefined;
  after(async () => {
    await k?.stop();
    data.remove();
  });

  it("never starves the other automations (its wake moves on; the loop keeps looking)", async () => {
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler: { batchSize: 1 } });
    const token = await createAccount(k, 'ann');
    await uploadBundleAs(k, token, 'echo', echoFlow);
    let api = automationsApi(() => k!, token);
    const broken = await api.create({ request_id: 'broken', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const start = new Date(clock.nowMs() + 3_600_000).toISOString();
    const healthy = await api.create({ request_id: 'healthy', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'hi' } }, trigger: { source_id: 'schedule', source_version: 1, config: { start_at: start, every: '1m' } } });
    await k.stop();
    k = undefined;

    // The broken record: a shape this version cannot step, due long ago (first in the wake index).
    const env = open({ path: path.join(data.dir, 'db'), maxDbs: 512, overlappingSync: false, compression: false });
    const records = env.openDB<Record<string, unknown>, string>({ name: 'automations:automations' });
    const byWake = env.openDB<true, [string, string]>({ name: 'automations:automations-by-wake' });
    const record = records.get(broken)!;
    const due = '2001-01-01T00:00:00.000Z';
    if (typeof record.wake_at === 'string') await byWake.remove([record.wake_at, broken]);
    await records.put(broken, { ...record, pending: null, wake_at: due });
    await byWake.put([due, broken], true);
    await env.close();

    clock.advance(3_600_000 + 1_000);
    k = await automationsKernel(clock, { dataDir: data.dir, scheduler: { batchSize: 1 } });
    api = automationsApi(() => k!, token);
    await api.untilOccurrences(healthy, 'the healthy automation to fire', (rows) => rows[0]?.status === 'completed', 30_000);
    // The broken one is still listed (nothing crashed on reading it).
    const read = await api.call('GET', '/automations');
    if (read.statusCode !== 200) throw new Error(read.body);
  });
});
