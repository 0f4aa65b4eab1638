import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { tempDir } from './helpers/paths.js';
import { until } from './helpers/until.js';

/**
 * The automation summary (reference gateway-surfaces §3.6) as GET /automations/{id} and the
 * listing serve it, composed from the record, the engine's occurrences and attention items, the
 * runs plugin's open waits and the triggers' wording; and the definitions surviving a restart.
 */

const MANUAL = { source_id: 'manual', source_version: 1, config: {} };

interface Summary {
  status: string;
  occurrence_count: number;
  current_occurrence: { index: number; status: string } | null;
  last_occurrence: { index: number; status: string; excerpt: string; attempts: number; run_id: string } | null;
  attention: { pending_waits: number; unread: boolean; unseen_count: number; cursor: string; items: Array<{ kind: string; cursor: string; title: string }>; waits: Array<{ kind: string; index: number }> };
  time_zone: string;
  schedule_rule_text: string;
  schedule_text: string;
  next_fire_at?: string;
  next_run_at?: string;
  next_run_local?: string;
  capabilities: string[];
}

describe('automations: the summary and durability (issue 15)', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  const data = tempDir();
  let k: TestKernel;
  let bob = '';
  let carol = '';
  const api = () => automationsApi(() => k, bob);
  const summaryOf = async (id: string, token = bob) => {
    const res = await k.inject({ url: `/api/gateway/automations/${id}`, token });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ summary: Summary }>().summary;
  };

  before(async () => {
    k = await automationsKernel(clock, { dataDir: data.dir });
    bob = await createAccount(k, 'bob');
    carol = await createAccount(k, 'carol');
    await uploadBundleAs(k, bob, 'echo', echoFlow);
    await uploadBundleAs(k, bob, 'ask', askUserFlow());
  });
  after(async () => {
    await k?.stop();
    data.remove();
  });

  it('shows the last finished occurrence with an excerpt of its answer, and counts occurrences', async () => {
    const id = await api().create({ request_id: 'summary-1', title: 'Echo', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: `hello ${'x'.repeat(400)}` } }, trigger: MANUAL });
    expect((await summaryOf(id)).last_occurrence).to.equal(null);
    await api().command(id, 'automation.run_now');
    const done = await until(() => summaryOf(id), { what: 'the occurrence to finish', ok: (s) => s.last_occurrence?.status === 'completed' && s.current_occurrence === null, deadline: 60_000 });
    expect(done.occurrence_count).to.equal(1);
    expect(done.last_occurrence).to.include({ index: 1, attempts: 1 });
    expect([...done.last_occurrence!.excerpt]).to.have.length(280);
    expect(done.last_occurrence!.excerpt).to.contain('hello');
  });

  it('carries the attention block per viewer: unseen notify items until seen', async () => {
    const id = await api().create({ request_id: 'summary-2', title: 'Notifier', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'look at me', notify: true } }, trigger: MANUAL });
    await api().command(id, 'automation.run_now');
    const told = await until(() => summaryOf(id), { what: 'the notify attention item', ok: (s) => s.attention.unseen_count === 1, deadline: 60_000 });
    expect(told.attention).to.include({ unread: true, unseen_count: 1, cursor: 'att1:1', pending_waits: 0 });
    expect(told.attention.items).to.have.length(1);
    expect(told.attention.items[0]).to.include({ kind: 'notify', cursor: 'att1:1', title: 'Notifier' });
    const seen = await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/seen`, token: bob, payload: { attention_cursor: 'att1:1' } });
    expect(seen.statusCode, seen.body).to.equal(200);
    const after = await summaryOf(id);
    expect(after.attention).to.include({ unread: false, unseen_count: 0, cursor: 'att1:1' });
    expect(after.attention.items).to.deep.equal([]);
  });

  it('lists the running occurrence\'s open person-wait in the attention block', async () => {
    const id = await api().create({ request_id: 'summary-3', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: MANUAL });
    await api().command(id, 'automation.run_now');
    const waiting = await until(() => summaryOf(id), { what: 'the occurrence to wait for a person', ok: (s) => s.attention.pending_waits === 1, deadline: 60_000 });
    expect(waiting.attention.waits).to.have.length(1);
    expect(waiting.attention.waits[0]).to.include({ kind: 'ask_user', index: 1 });
    expect(waiting.current_occurrence).to.include({ index: 1 });
    expect(waiting.last_occurrence).to.include({ index: 1, status: 'waiting' });
    await api().command(id, 'automation.stop_current');
    await until(() => summaryOf(id), { what: 'the occurrence to stop', ok: (s) => s.current_occurrence === null, deadline: 60_000 });
  });

  it('words the schedule and shows the next run only while the automation is active', async () => {
    const id = await api().create({ request_id: 'summary-4', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'daily' } }, trigger: { source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris' } } });
    const active = await summaryOf(id);
    expect(active.time_zone).to.equal('Europe/Paris');
    expect(active.schedule_rule_text).to.equal('Every day at 08:00 (Europe/Paris)');
    expect(active.schedule_text).to.match(/^Every day at 08:00 \(Europe\/Paris\) · next /);
    expect(active.next_fire_at).to.be.a('string');
    expect(active.next_run_at).to.equal(active.next_fire_at);
    expect(active.next_run_local).to.match(/T08:00:00(\.000)?\+0[12]:00$/);
    await api().command(id, 'automation.pause');
    const paused = await summaryOf(id);
    expect(paused).to.not.have.property('next_fire_at');
    expect(paused).to.not.have.property('next_run_at');
    expect(paused.schedule_text).to.equal('Every day at 08:00 (Europe/Paris)');
    await api().command(id, 'automation.resume');
    expect((await summaryOf(id)).next_fire_at).to.be.a('string');
  });

  it('completes when its trigger has no run left: then only archive applies (409 invalid_state otherwise) and it offers only discuss', async () => {
    const id = await api().create({ request_id: 'summary-once', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'once' } }, trigger: { source_id: 'schedule', source_version: 1, config: { start_at: new Date(clock.ms).toISOString() } } });
    const completed = await until(() => summaryOf(id), { what: 'the one-shot automation to complete', ok: (s) => s.status === 'completed', deadline: 60_000 });
    expect(completed.capabilities).to.deep.equal(['discuss']);
    expect(completed).to.not.have.property('next_fire_at');
    for (const type of ['automation.pause', 'automation.resume', 'automation.run_now', 'automation.stop_current', 'automation.unarchive']) {
      const res = await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token: bob, payload: { command_id: crypto.randomUUID(), type } });
      expect(res.statusCode, `${type}: ${res.body}`).to.equal(409);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('invalid_state');
    }
    const revise = await k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token: bob, payload: { command_id: crypto.randomUUID(), changes: { title: 'again' } } });
    expect(revise.statusCode, revise.body).to.equal(409);
    await api().command(id, 'automation.archive');
    expect((await summaryOf(id)).status).to.equal('archived');
  });

  it('never shows another account the summary', async () => {
    const id = await api().create({ request_id: 'summary-5', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: MANUAL });
    const res = await k.inject({ url: `/api/gateway/automations/${id}`, token: carol });
    expect(res.statusCode).to.equal(404);
    expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('automation_not_found');
  });

  it('keeps definitions, revisions and command receipts across a restart (LMDB)', async () => {
    const body = { request_id: 'durable-1', title: 'Durable', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'p' } }, trigger: MANUAL };
    const id = await api().create(body);
    const patched = await k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token: bob, payload: { command_id: 'durable-revise', expected_revision: 1, changes: { title: 'Durable 2' } } });
    expect(patched.statusCode, patched.body).to.equal(200);
    const pause = await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token: bob, payload: { command_id: 'durable-pause', type: 'automation.pause' } });
    expect(pause.statusCode, pause.body).to.equal(200);
    await k.stop();
    k = await automationsKernel(clock, { dataDir: data.dir });
    const read = await k.inject({ url: `/api/gateway/automations/${id}`, token: bob });
    expect(read.statusCode, read.body).to.equal(200);
    expect(read.json<{ active_revision: number; summary: Summary & { title: string } }>().summary).to.include({ title: 'Durable 2', status: 'paused', revision: 2 });
    const revisions = (await k.inject({ url: `/api/gateway/automations/${id}/revisions`, token: bob })).json<{ items: Array<{ revision: number }> }>().items;
    expect(revisions.map((r) => r.revision)).to.deep.equal([2, 1]);
    // The same command and the same create after the restart are what they were.
    const again = await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token: bob, payload: { command_id: 'durable-pause', type: 'automation.pause' } });
    expect(again.json()).to.deep.equal({ command_id: 'durable-pause', accepted: true, duplicate: true, seq: pause.json<{ seq: number }>().seq });
    const recreated = await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: body });
    expect(recreated.json<{ automation_id: string }>().automation_id).to.equal(id);
  });
});
