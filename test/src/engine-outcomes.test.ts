/**
 * What an occurrence's end becomes (issue 15, engine), through the HTTP API with an injected clock:
 * failed attempts are retried after policy.retry's backoff with deterministic run ids, the last
 * failure asks for attention; `notify` outputs ask for attention; the seen cursor only moves
 * forward; stop_current cancels the running occurrence's run (no retry); an emitted event fires an
 * event-triggered automation once per event.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { engine } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, failingFlow, TestClock } from './helpers/automations-engine.js';
import { askUserFlow } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';

const manual = { source_id: 'manual', source_version: 1, config: {} };

describe('engine: occurrence outcomes, retries, attention, stop_current and events', function () {
  this.timeout(300_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    await uploadBundleAs(k, ann, 'broken', failingFlow);
    await uploadBundleAs(k, ann, 'ask', askUserFlow());
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  const run = async (runId: string) => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: ann })).json<RunRecord>();

  it('a failed attempt is retried after the backoff with run id "<name>:a2"; after the last attempt the occurrence fails and asks for attention', async () => {
    const id = await api.create({
      request_id: 'retries', title: 'Flaky', target: { bundle_ref: 'broken', flow_id: 'broken', input_data: {} }, trigger: manual,
      policy: { retry: { max_attempts: 2, backoff: { initial: '30s', factor: 2, max: '10m' } } },
    });
    const receipt = await api.command(id, 'automation.run_now');
    const first = engine.uuid5(id, `manual:${receipt.command_id}`);
    let rows = await api.untilOccurrences(id, 'attempt 1 to fail into backoff', (r) => r[0]?.status === 'backoff');
    expect(rows[0]).to.deep.include({ run_id: first, attempts: 1 });
    expect((await run(first)).status).to.equal('failed');
    expect((await api.summary(id)).current_occurrence).to.deep.include({ index: 1, attempt: 1, status: 'backoff' });
    expect(await api.attention(id), 'no attention before the last attempt').to.deep.equal([]);

    clock.advance(29_000);
    // Not yet: the retry waits its 30 s.
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'the backoff to hold', ok: (c) => (c as { status: string } | null)?.status === 'backoff' });
    clock.advance(1_000);
    rows = await api.untilOccurrences(id, 'attempt 2 to fail for good', (r) => r[0]?.status === 'failed');
    const second = engine.uuid5(id, `manual:${receipt.command_id}:a2`);
    expect(rows[0]).to.deep.include({ run_id: second, attempts: 2 });
    expect(rows[0]!.failure).to.deep.include({ reason_code: 'occurrence_failed', attempts: 2 });
    expect(rows[0]!.failure!.message).to.be.a('string').and.not.equal('');
    expect((await run(second)).status).to.equal('failed');
    expect((await api.summary(id)).current_occurrence).to.equal(null);

    const items = await api.attention(id);
    expect(items).to.have.length(1);
    expect(items[0]).to.deep.include({ kind: 'failure', automation_id: id, run_id: second, index: 1, title: 'Flaky', cursor: 'att1:1' });
    expect(items[0]!.body).to.match(/^Occurrence 1 failed after 2 attempts: /);
  });

  it('an output with notify asks for attention; seen moves forward only; a malformed or future cursor is 422 attention_cursor', async () => {
    const id = await api.create({ request_id: 'notify', title: 'Notifier', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Ping', notify: true } }, trigger: manual });
    for (let n = 1; n <= 2; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `notify occurrence ${n}`, (r) => r.length === n && r[0]!.status === 'completed');
    }
    const items = await api.attention(id);
    expect(items.map((i) => [i.kind, i.index, i.cursor, i.title])).to.deep.equal([['notify', 1, 'att1:1', 'Notifier'], ['notify', 2, 'att1:2', 'Notifier']]);
    expect(items[0]!.body).to.match(/\nPing$/);
    const summary = await api.summary(id);
    expect(summary.attention).to.deep.include({ unread: true, unseen_count: 2, cursor: 'att1:2' });

    const seen = async (cursor: unknown) => api.call('POST', `/automations/${id}/seen`, { attention_cursor: cursor });
    expect((await seen('att1:1')).json()).to.deep.equal({ attention_cursor: 'att1:1' });
    expect((await api.attention(id)).map((i) => i.cursor)).to.deep.equal(['att1:2']);
    expect((await seen('att1:0')).json(), 'never backwards').to.deep.equal({ attention_cursor: 'att1:1' });
    for (const bad of ['att1:3', 'att1:01', 'att2:1', 'att1:-1', '', 5]) {
      const res = await seen(bad);
      expect(res.statusCode, String(bad)).to.equal(422);
      expect(res.json<{ detail: { reason_code: string; field: string } }>().detail, String(bad)).to.deep.include({ reason_code: 'invalid_request', field: 'attention_cursor' });
    }
    expect((await api.call('POST', `/automations/${id}/seen`, { attention_cursor: 'att1:1', extra: 1 })).statusCode).to.equal(422);
    expect((await seen('att1:2')).json()).to.deep.equal({ attention_cursor: 'att1:2' });
    expect(await api.attention(id)).to.deep.equal([]);
    expect((await api.summary(id)).attention).to.deep.include({ unread: false, unseen_count: 0 });
  });

  it('stop_current cancels the running occurrence through the runs plugin; it ends cancelled and is not retried', async () => {
    const id = await api.create({ request_id: 'stop', title: 'Asker', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: manual });
    await api.command(id, 'automation.run_now');
    let rows = await api.untilOccurrences(id, 'the occurrence to wait for a person', (r) => r[0]?.status === 'waiting');
    expect(rows[0]!.waits[0]).to.deep.include({ kind: 'ask_user' });
    expect((await api.summary(id)).attention).to.deep.include({ pending_waits: 1 });
    await api.command(id, 'automation.stop_current');
    rows = await api.untilOccurrences(id, 'the occurrence to be cancelled', (r) => r[0]?.status === 'cancelled');
    expect(rows[0]).to.deep.include({ attempts: 1 });
    expect((await run(rows[0]!.run_id!)).status).to.equal('cancelled');
    clock.advance(3_600_000);
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'no current occurrence', ok: (c) => c === null });
    expect(await api.occurrences(id)).to.have.length(1);
    expect(await api.attention(id), 'a stop asks for no attention').to.deep.equal([]);
  });

  it('archive waits for the current occurrence: it finishes, then the automation is archived and admits nothing', async () => {
    const id = await api.create({ request_id: 'archive', title: 'Asks then archives', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
    const rows = await api.untilOccurrences(id, 'the first occurrence to wait', (r) => r[0]?.status === 'waiting');
    await api.command(id, 'automation.archive');
    expect((await api.summary(id)).current_occurrence, 'the occurrence keeps running').to.deep.include({ index: 1 });
    const answer = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: `answer-${id}`, run_id: rows[0]!.run_id, type: 'resume', payload: { payload: { response: 'Ada' } } } });
    expect(answer.statusCode, answer.body).to.equal(200);
    const done = await api.untilOccurrences(id, 'the occurrence to complete', (r) => r[0]?.status === 'completed');
    expect(done[0]!.answer).to.equal('Ada');
    const summary = await until(async () => api.summary(id), { what: 'the automation to be archived', ok: (s) => s.status === 'archived' });
    expect(summary.current_occurrence).to.equal(null);
    clock.advance(2 * 3_600_000);
    expect((await api.summary(id)).status).to.equal('archived');
    expect(await api.occurrences(id)).to.have.length(1);
  });

  it("a disabled owner's scheduled fire fails with a sentence (after its retries) and the automation keeps its schedule", async () => {
    const dan = await createAccount(k, 'dan');
    await uploadBundleAs(k, dan, 'echo', echoFlow);
    const danApi = automationsApi(() => k, dan);
    const id = await danApi.create({ request_id: 'owner-gone', title: 'Orphan', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } }, policy: { retry: { max_attempts: 1, backoff: { initial: '30s', factor: 2, max: '10m' } } } });
    await danApi.untilOccurrences(id, 'tick 0', (r) => r[0]?.status === 'completed');
    // A witness of ann's on the same hourly schedule, made after dan's: its tick comes due in the same look, just after.
    const witness = await api.create({ request_id: 'witness', title: 'Witness', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'w' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
    await api.untilOccurrences(witness, 'the witness tick 0', (r) => r[0]?.status === 'completed');
    const disabled = await k.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/dan/active', token: k.adminToken, payload: { active: false } });
    expect(disabled.statusCode, disabled.body).to.equal(200);
    clock.advance(3_600_000);
    await api.untilOccurrences(witness, 'the witness tick 1', (r) => r.length === 2 && r[0]!.status === 'completed');
    // Re-enabled only to read the result with dan's own token; the fire happened while dan was disabled.
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/admin/accounts/dan/active', token: k.adminToken, payload: { active: true } })).statusCode).to.equal(200);
    const rows = await danApi.untilOccurrences(id, 'the fire to fail', (r) => r.length === 2 && r[0]!.status === 'failed');
    expect(rows[0]!.failure!.message).to.match(/owner account 'dan' no longer exists or is disabled/);
    const summary = await danApi.summary(id);
    expect(summary.status).to.equal('active');
    expect(summary).to.have.property('next_fire_at');
  });

  it('an emit_event fires an event-triggered automation once per event, with the event in input_data.trigger', async () => {
    const id = await api.create({ request_id: 'event', title: 'On build', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Build finished' } }, trigger: { source_id: 'event', source_version: 1, config: { name: 'build.done' } } });
    const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: ann, payload: { bundle_id: 'echo', session_id: 'builds', input_data: { prompt: 'x' } } });
    const runId = start.json<{ run_id: string }>().run_id;
    await until(async () => (await run(runId)).status, { what: 'the session run to end', ok: (s) => s === 'completed' });
    const emit = (commandId: string, name = 'build.done') => k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: commandId, run_id: runId, type: 'emit_event', payload: { name, payload: { ok: true } } } });
    expect((await emit('emit-other', 'deploy.done')).statusCode).to.equal(200);
    expect((await emit('emit-1')).statusCode).to.equal(200);
    const rows = await api.untilOccurrences(id, 'the event occurrence', (r) => r[0]?.status === 'completed');
    expect(rows).to.have.length(1);
    expect(rows[0]!.user_turn).to.match(/^\[Trigger event@1 · occurrence 1 · fired /);
    const inputs = (await k.inject({ url: `/api/gateway/runs/${rows[0]!.run_id}/input_data`, token: ann })).json<Record<string, unknown>>();
    const trigger = ((inputs.input_data ?? inputs) as { trigger: { event: { event_id: string; name: string; payload: unknown } } }).trigger;
    expect(trigger.event).to.deep.include({ event_id: 'emit-1', name: 'build.done' });
    expect(trigger.event.payload).to.deep.equal({ ok: true });
    // The same command again is the same event: it fires nothing more.
    expect((await emit('emit-1')).statusCode).to.equal(200);
    expect((await emit('emit-2')).statusCode).to.equal(200);
    const after = await api.untilOccurrences(id, 'the second event occurrence', (r) => r.length === 2 && r[0]!.status === 'completed');
    expect(after.map((r) => r.index)).to.deep.equal([2, 1]);
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'nothing pending', ok: (c) => c === null });
    expect(await api.occurrences(id)).to.have.length(2);
  });
});

describe('engine: a growing automation replays its earlier occurrences', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  let api: ReturnType<typeof automationsApi>;
  let ann = '';

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  it('each occurrence runs in the automation session with session_kind automation and the earlier turns as history', async () => {
    const id = await api.create({ request_id: 'growing', title: 'Diary', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Note' } }, trigger: manual, context: { mode: 'growing' } });
    for (let n = 1; n <= 2; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `growing occurrence ${n}`, (r) => r.length === n && r[0]!.status === 'completed');
    }
    const rows = await api.occurrences(id);
    const second = (await k.inject({ url: `/api/gateway/runs/${rows[0]!.run_id}`, token: ann })).json<RunRecord & { session_id: string; session_kind: string; session_history: Record<string, unknown> | null }>();
    expect(second.session_id).to.equal(`automation:${id}`);
    const listed = (await k.inject({ url: `/api/gateway/runs?session_id=${encodeURIComponent(`automation:${id}`)}`, token: ann })).json<{ items: Array<{ run_id: string; session_kind: string; role: string }> }>().items;
    expect(listed.find((r) => r.run_id === rows[0]!.run_id)).to.deep.include({ session_kind: 'automation', role: 'occurrence' });
    // The first occurrence (a growing one: session_kind automation, role occurrence) is a turn of the session.
    expect(second.session_history).to.deep.include({ seeded: 2, replayed_messages: 2 });
  });
});

describe('engine: events queued while an occurrence runs are bounded (scheduler.maxPendingEvents)', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  after(async () => k?.stop());

  it('fires queued events one at a time after the current occurrence; events beyond the bound are dropped', async () => {
    k = await automationsKernel(clock, { scheduler: { maxPendingEvents: 2 } });
    const ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'ask', askUserFlow());
    const api = automationsApi(() => k, ann);
    const id = await api.create({ request_id: 'flood', title: 'Flood', target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} }, trigger: { source_id: 'event', source_version: 1, config: { name: 'tick' } } });
    const start = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: ann, payload: { bundle_id: 'ask', session_id: 'flood', input_data: {} } });
    const anchorRun = start.json<{ run_id: string }>().run_id;
    const emit = async (n: number) => {
      const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: `flood-${n}`, run_id: anchorRun, type: 'emit_event', payload: { name: 'tick', payload: { n } } } });
      expect(res.statusCode, res.body).to.equal(200);
    };
    await emit(1);
    await api.untilOccurrences(id, 'the first event occurrence to wait', (r) => r[0]?.status === 'waiting');
    for (let n = 2; n <= 6; n++) await emit(n);
    for (let n = 1; n <= 3; n++) {
      await api.untilOccurrences(id, `occurrence ${n} to wait`, (r) => r.length === n && r[0]!.status === 'waiting');
      await api.command(id, 'automation.stop_current');
      await api.untilOccurrences(id, `occurrence ${n} to be cancelled`, (r) => r.length >= n && r.find((row) => row.index === n)!.status === 'cancelled');
    }
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'nothing current', ok: (c) => c === null });
    const rows = await api.occurrences(id);
    expect(rows.map((r) => r.index)).to.deep.equal([3, 2, 1]);
  });
});
