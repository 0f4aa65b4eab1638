/**
 * Spec review of issue 15 (automations), occurrences end to end through the HTTP API with an
 * injected clock: the workspace of a `{configured: false}` definition resolved at each fire (the
 * owner's policy changed between two fires), what an occurrence's run receives per context mode
 * (reference §3.9: `use_context`, `_runtime.automation_context`, the growing window), and the
 * summary's `growing_max_tokens` and `next_fire_at` during a running occurrence (reference §3.6).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { askUserFlow, edges, node } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';

const manual = { source_id: 'manual', source_version: 1, config: {} };

describe('review 15: occurrences end to end', function () {
  this.timeout(300_000);
  const clock = new TestClock();
  const folder = tempDir();
  let k: TestKernel;
  let ann = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    await uploadBundleAs(k, ann, 'ask', askUserFlow());
    api = automationsApi(() => k, ann);
  });
  after(async () => {
    await k?.stop();
    folder.remove();
  });

  const workspaceOf = async (runId: string) => (await k.inject({ url: `/api/gateway/runs/${runId}/workspace`, token: ann })).json<{ workspace_level: string; workspace_summary: string }>();
  const inputsOf = async (runId: string) => {
    const res = (await k.inject({ url: `/api/gateway/runs/${runId}/input_data`, token: ann })).json<Record<string, unknown>>();
    return ((res.input_data ?? res) as Record<string, unknown>);
  };

  it("resolves a {configured: false} definition's workspace at each fire: the owner's policy changed between two fires is followed by the second", async () => {
    const id = await api.create({ request_id: 'ws-follow', title: 'Follows my default', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'ws' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
    expect((await api.call('GET', `/automations/${id}`)).json<{ definition: { target: { input_data: Record<string, unknown> } } }>().definition.target.input_data.workspace).to.deep.equal({ configured: false });
    let rows = await api.untilOccurrences(id, 'the first fire to complete', (r) => r[0]?.status === 'completed');
    const first = await workspaceOf(rows[0]!.run_id!);
    const shared = path.join(folder.dir, 'ann-notes');
    mkdirSync(shared, { recursive: true });
    const put = await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/ann', token: k.adminToken, payload: { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: shared, mode: 'ro' }] } });
    expect(put.statusCode, put.body).to.equal(200);
    clock.advance(3_600_000);
    rows = await api.untilOccurrences(id, 'the second fire to complete', (r) => r.length === 2 && r[0]!.status === 'completed');
    const second = await workspaceOf(rows[0]!.run_id!);
    expect(first.workspace_summary).to.not.include(shared);
    expect(second.workspace_level).to.equal('account');
    expect(second.workspace_summary).to.include(shared);
    // Back to the gateway's policy: the third fire follows again.
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/workspace/policy/ann', token: k.adminToken, payload: { configured: false } })).statusCode).to.equal(200);
    clock.advance(3_600_000);
    rows = await api.untilOccurrences(id, 'the third fire to complete', (r) => r.length === 3 && r[0]!.status === 'completed');
    const third = await workspaceOf(rows[0]!.run_id!);
    expect(third.workspace_level).to.equal(first.workspace_level);
    expect(third.workspace_summary).to.not.include(shared);
    await api.command(id, 'automation.pause');
  });

  it('an independent occurrence starts without context (use_context false) and records _runtime.automation_context', async () => {
    const id = await api.create({ request_id: 'ctx-independent', title: 'Independent', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'p' } }, trigger: manual });
    await api.command(id, 'automation.run_now');
    const rows = await api.untilOccurrences(id, 'the occurrence to complete', (r) => r[0]?.status === 'completed');
    const inputs = await inputsOf(rows[0]!.run_id!);
    expect(inputs.use_context).to.equal(false);
    expect((inputs._runtime as Record<string, unknown>).automation_context).to.deep.equal({ mode: 'independent', use_context: false, target_use_context: true });
  });

  it('shows growing_max_tokens as the window in force: 50000 by default, for an independent automation too (reference §3.6 example)', async () => {
    const id = await api.create({ request_id: 'window-shown', title: 'Independent', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'p' } }, trigger: manual });
    expect(await api.summary(id)).to.include({ context_mode: 'independent', growing_max_tokens: 50_000 });
  });

  it("a growing occurrence replays its session through context.growing.max_tokens, not the gateway's default window", async () => {
    const id = await api.create({ request_id: 'ctx-growing', title: 'Growing', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Note' } }, trigger: manual, context: { mode: 'growing', growing: { max_tokens: 1000 } } });
    expect(await api.summary(id)).to.include({ context_mode: 'growing', growing_max_tokens: 1000 });
    for (let n = 1; n <= 2; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `growing occurrence ${n}`, (r) => r.length === n && r[0]!.status === 'completed');
    }
    const rows = await api.occurrences(id);
    const run = (await k.inject({ url: `/api/gateway/runs/${rows[0]!.run_id}`, token: ann })).json<{ session_history: Record<string, unknown> | null }>();
    expect(run.session_history).to.deep.include({ seeded: 2, max_tokens: 1000 });
    const inputs = await inputsOf(rows[0]!.run_id!);
    expect(inputs.use_context).to.equal(true);

    expect((inputs._runtime as Record<string, unknown>).automation_context).to.deep.equal({ mode: 'growing', use_context: true, target_use_context: true });
  });

  it("names a growing automation's folder (its session's, shared by its occurrences) as summary.workspace_root; an independent one has none", async () => {
    const id = await api.create({ request_id: 'growing-folder', title: 'Growing folder', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Note' } }, trigger: manual, context: { mode: 'growing' } });
    for (let n = 1; n <= 2; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `growing occurrence ${n}`, (r) => r.length === n && r[0]!.status === 'completed');
    }
    const rows = await api.occurrences(id);
    const folders = await Promise.all(rows.map(async (row) => (await k.inject({ url: `/api/gateway/runs/${row.run_id}/workspace`, token: ann })).json<{ workspace_root: string }>().workspace_root));
    expect(folders[0]).to.be.a('string').and.equal(folders[1]);
    expect((await api.summary(id)).workspace_root).to.equal(folders[0]);
    const independent = await api.create({ request_id: 'independent-folder', title: 'Independent folder', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'p' } }, trigger: manual });
    await api.command(independent, 'automation.run_now');
    await api.untilOccurrences(independent, 'the occurrence', (r) => r[0]?.status === 'completed');
    expect((await api.summary(independent)).workspace_root).to.equal(null);
  });

  it('shows next_fire_at while an occurrence runs (reference §3.6: present during a running occurrence)', async () => {
    const id = await api.create({ request_id: 'next-while-running', title: 'Asks hourly', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
    await api.untilOccurrences(id, 'the occurrence to wait for a person', (r) => r[0]?.status === 'waiting');
    const summary = await api.summary(id);
    expect(summary.current_occurrence).to.deep.include({ index: 1 });
    expect(summary.next_fire_at, 'the next tick while the occurrence runs').to.be.a('string');
    expect(Date.parse(summary.next_fire_at!) - Date.parse(summary.trigger ? String((summary.trigger as { config: { start_at: string } }).config.start_at) : '')).to.equal(3_600_000);
    expect(summary).to.have.property('next_run_at', summary.next_fire_at);
    await api.command(id, 'automation.stop_current');
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'the occurrence to stop', ok: (c) => c === null });
  });
});

describe('review 15: typed waits leave out the fields a wait does not have', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    const waits = { id: 'waits', nodes: [node({ id: 'start', type: 'on_flow_start' }), node({ id: 'wait', type: 'wait_event', data: { eventKey: 'never' } }), node({ id: 'end', type: 'on_flow_end' })], edges: edges('start -> wait', 'wait -> end') };
    await uploadBundleAs(k, ann, 'waits', waits);
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  it('an event wait has no prompt or choices in the summary waits, as in the occurrence row (reference §3.8 prompt?, choices?)', async () => {
    const id = await api.create({ request_id: 'event-wait', title: 'Waits for an event', target: { bundle_ref: 'waits', flow_id: 'waits', input_data: {} }, trigger: manual });
    await api.command(id, 'automation.run_now');
    const rows = await api.untilOccurrences(id, 'the occurrence to wait', (r) => r[0]?.status === 'waiting');
    const rowWait = rows[0]!.waits[0] as Record<string, unknown>;
    expect(rowWait).to.include({ kind: 'event' });
    const summaryWait = ((await api.summary(id)).attention as { waits: Array<Record<string, unknown>> }).waits[0]!;
    expect(summaryWait).to.include({ kind: 'event', index: 1, run_id: rowWait.run_id });
    expect(summaryWait).to.not.have.property('prompt');
    expect(summaryWait).to.not.have.property('choices');
    expect(Object.keys(rowWait).sort()).to.deep.equal(Object.keys(summaryWait).filter((key) => key !== 'index').sort());
    await api.command(id, 'automation.stop_current');
  });
});
