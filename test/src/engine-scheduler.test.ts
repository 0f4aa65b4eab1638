/**
 * The scheduler through the HTTP API (issue 15, engine), on the real boot path with a fake
 * `core.clock` the test moves: a schedule fires and its occurrence is a tagged root run in
 * GET /runs; run_now while paused; the occurrences listing (newest first, cursors, limits) and the
 * owner-only rule.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { engine } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { until } from './helpers/gateway-runs.js';

interface RunRow { run_id: string; session_kind: string | null; automation_id: string | null; role: string | null; occurrence_index: number | null; session_id: string | null }

describe('engine: the scheduler fires occurrences as tagged root runs', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let bob = '';
  let api: ReturnType<typeof automationsApi>;
  let bobApi: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    bob = await createAccount(k, 'bob');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
    bobApi = automationsApi(() => k, bob);
  });
  after(async () => k?.stop());

  it('a schedule fires at its ticks; each occurrence is a root run in GET /runs with automation_id, role and occurrence_index', async () => {
    const id = await api.create({ request_id: 'every-minute', title: 'Minutely', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Say hi' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1m' } } });
    // Tick 0 is the creation time: it fires at once.
    let rows = await api.untilOccurrences(id, 'occurrence 1 to complete', (r) => r[0]?.status === 'completed');
    expect(rows).to.have.length(1);
    const first = rows[0]!;
    expect(first.index).to.equal(1);
    expect(first.run_id).to.equal(engine.uuid5(id, '1:1'));
    expect(first.user_turn).to.match(/^\[Trigger schedule@1 · occurrence 1 · fired \d{4}-\d\d-\d\dT[\d:.]+Z\]\nSay hi$/);
    expect(first.answer, 'the answer is output.response').to.equal(first.user_turn);
    expect(first.trigger.source_id).to.equal('schedule');
    expect(first.trigger.summary).to.match(/^schedule: every minute \(UTC\), tick 0$/i);
    expect(first.ledger_url).to.equal(`/api/gateway/runs/${first.run_id}/ledger`);
    expect(first.coalesced).to.equal(null);

    // Nothing more fires until the clock reaches the next tick.
    expect(Date.parse((await api.summary(id)).next_fire_at!) - Date.parse(first.fired_at)).to.equal(60_000);
    clock.advance(60_000);
    rows = await api.untilOccurrences(id, 'occurrence 2 to complete', (r) => r.length === 2 && r[0]!.status === 'completed');
    expect(rows.map((r) => r.index), 'newest first').to.deep.equal([2, 1]);
    expect(rows[0]!.trigger.summary).to.match(/^schedule: every minute \(UTC\), tick 1$/i);

    const runs = (await k.inject({ url: '/api/gateway/runs?root_only=true', token: ann })).json<{ items: RunRow[] }>().items;
    for (const row of rows) {
      const run = runs.find((r) => r.run_id === row.run_id);
      expect(run, `run ${row.run_id} in GET /runs`).to.not.equal(undefined);
      expect(run).to.deep.include({ automation_id: id, role: 'occurrence', occurrence_index: row.index, session_kind: 'occurrence', session_id: `occurrence-session:${row.run_id}` });
    }
    const inputs = (await k.inject({ url: `/api/gateway/runs/${rows[0]!.run_id}/input_data`, token: ann })).json<{ input_data: Record<string, unknown> } & Record<string, unknown>>();
    const inputData = (inputs.input_data ?? inputs) as Record<string, unknown>;
    expect(inputData.trigger).to.deep.include({ source: 'schedule@1', source_id: 'schedule', kind: 'schedule', tick: 1, occurrence_index: 2, automation_id: id });
    await api.command(id, 'automation.pause');
  });

  it('a paused automation admits no scheduled fire, but run_now runs one occurrence and it stays paused', async () => {
    const id = await api.create({ request_id: 'paused-run-now', title: 'Hourly', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'Report' } }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
    await api.untilOccurrences(id, 'the first tick to complete', (r) => r[0]?.status === 'completed');
    await api.command(id, 'automation.pause');
    clock.advance(3 * 3_600_000);
    const receipt = await api.command(id, 'automation.run_now');
    const rows = await api.untilOccurrences(id, 'the manual occurrence to complete', (r) => r.length === 2 && r[0]!.status === 'completed');
    expect(rows[0]!.trigger).to.deep.equal({ source_id: 'manual', summary: `manual: run now (${receipt.command_id})` });
    expect(rows[0]!.run_id).to.equal(engine.uuid5(id, `manual:${receipt.command_id}`));
    expect(rows[0]!.user_turn).to.match(/^\[Trigger manual@1 · occurrence 2 · fired /);
    const summary = await api.summary(id);
    expect(summary.status).to.equal('paused');
    expect(summary).to.not.have.property('next_fire_at');
    // Three hours of ticks passed while paused: none fired (another look of the engine changes nothing).
    clock.advance(60_000);
    await until(async () => (await api.summary(id)).current_occurrence, { what: 'no current occurrence', ok: (c) => c === null });
    expect(await api.occurrences(id)).to.have.length(2);
  });

  it('lists occurrences newest first with cursors and limit 1..200; a bad cursor or limit is 422', async () => {
    const id = await api.create({ request_id: 'paging', title: 'Paging', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'p' } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    for (let n = 1; n <= 3; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `manual occurrence ${n}`, (r) => r.length === n && r[0]!.status === 'completed');
    }
    const page1 = (await api.call('GET', `/automations/${id}/occurrences?limit=2`)).json<{ items: Array<{ index: number }>; next_cursor: string }>();
    expect(page1.items.map((r) => r.index)).to.deep.equal([3, 2]);
    expect(page1.next_cursor).to.equal('occ1:2');
    const page2 = (await api.call('GET', `/automations/${id}/occurrences?limit=2&cursor=${page1.next_cursor}`)).json<{ items: Array<{ index: number }>; next_cursor: string | null }>();
    expect(page2.items.map((r) => r.index)).to.deep.equal([1]);
    expect(page2.next_cursor).to.equal(null);
    for (const query of ['limit=0', 'limit=201', 'cursor=nope', 'cursor=occ1:-1']) {
      const res = await api.call('GET', `/automations/${id}/occurrences?${query}`);
      expect(res.statusCode, query).to.equal(422);
      expect(res.json<{ detail: { reason_code: string; field: string } }>().detail, query).to.deep.include({ reason_code: 'invalid_request' });
    }
    expect((await api.call('GET', `/automations/${id}/occurrences?cursor=nope`)).json<{ detail: { field: string } }>().detail.field).to.equal('cursor');
  });

  it("another account's automation, a made-up id and no token answer like none exists (404 / 401 envelopes)", async () => {
    const id = await api.create({ request_id: 'private', title: 'Private', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    for (const path of ['occurrences', 'attention']) {
      const res = await bobApi.call('GET', `/automations/${id}/${path}`);
      expect(res.statusCode, path).to.equal(404);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('automation_not_found');
      expect((await api.call('GET', `/automations/../automations/x/${path}`)).statusCode).to.be.oneOf([404, 422]);
    }
    expect((await bobApi.call('POST', `/automations/${id}/seen`, { attention_cursor: 'att1:0' })).statusCode).to.equal(404);
    expect((await api.call('GET', '/automations/not-a-uuid/occurrences')).json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('automation_not_found');
    const anonymous = await k.inject({ url: `/api/gateway/automations/${id}/occurrences` });
    expect(anonymous.statusCode).to.equal(401);
    expect(anonymous.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('unauthorized');
  });
  it('describes the occurrences, attention and seen routes in /openapi.json', async () => {
    const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>> }>();
    expect(doc.paths['/api/gateway/automations/{automation_id}/occurrences']).to.have.keys('get');
    expect(doc.paths['/api/gateway/automations/{automation_id}/attention']).to.have.keys('get');
    expect(doc.paths['/api/gateway/automations/{automation_id}/seen']).to.have.keys('post');
    const names = doc.paths['/api/gateway/automations/{automation_id}/occurrences']!.get!.parameters!.map((p) => p.name);
    expect(names).to.include.members(['automation_id', 'cursor', 'limit']);
  });
});
