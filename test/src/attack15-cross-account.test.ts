/**
 * Attack (issue 15): another account's automation through every door — the automation routes, the
 * claim on POST /commands (automation.* and run types), emitted events, discussion and automation
 * sessions forged on POST /runs/start, a target naming another account's bundle — and no token at all.
 * Each must fail without telling the automation apart from one that does not exist, and change nothing.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { until } from './helpers/gateway-runs.js';

describe('attack15: another account cannot reach an automation', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let annToken = '';
  let malToken = '';
  let ann: ReturnType<typeof automationsApi>;
  let mal: ReturnType<typeof automationsApi>;
  let id = '';
  let growing = '';
  let discussion = '';

  before(async () => {
    k = await automationsKernel(clock);
    annToken = await createAccount(k, 'ann');
    malToken = await createAccount(k, 'mal');
    await uploadBundleAs(k, annToken, 'echo', echoFlow);
    await uploadBundleAs(k, annToken, 'annonly', echoFlow);
    await uploadBundleAs(k, malToken, 'echo', echoFlow);
    ann = automationsApi(() => k, annToken);
    mal = automationsApi(() => k, malToken);
    id = await ann.create({ request_id: 'mine', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'secret prompt' } }, trigger: { source_id: 'event', source_version: 1, config: { name: 'go' } } });
    growing = await ann.create({ request_id: 'diary', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'diary secret' } }, trigger: { source_id: 'manual', source_version: 1, config: {} }, context: { mode: 'growing' } });
    await ann.command(growing, 'automation.run_now');
    await ann.untilOccurrences(growing, 'the growing occurrence', (rows) => rows[0]?.status === 'completed');
    const opened = await ann.call('POST', `/automations/${growing}/discuss`, { request_id: 'd1', occurrence_index: 1, prompt: 'why?' });
    expect(opened.statusCode, opened.body).to.equal(200);
    discussion = opened.json<{ session_id: string }>().session_id;
  });
  after(async () => k?.stop());

  const notFound = (res: { statusCode: number; body: string; json<T>(): T }, reason = 'automation_not_found') => {
    expect(res.statusCode, res.body).to.equal(404);
    expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code, res.body).to.equal(reason);
    expect(res.body).not.to.contain('secret');
  };

  it('every automation route answers 404 automation_not_found, as for an id that does not exist', async () => {
    const unknown = crypto.randomUUID();
    for (const target of [id, unknown]) {
      notFound(await mal.call('GET', `/automations/${target}`));
      notFound(await mal.call('GET', `/automations/${target}/revisions`));
      notFound(await mal.call('PATCH', `/automations/${target}`, { command_id: 'x', changes: { title: 'owned' } }));
      for (const type of ['automation.pause', 'automation.run_now', 'automation.archive', 'automation.stop_current']) notFound(await mal.call('POST', `/automations/${target}/commands`, { command_id: `c-${type}`, type }));
      notFound(await mal.call('GET', `/automations/${target}/occurrences`));
      notFound(await mal.call('GET', `/automations/${target}/attention`));
      notFound(await mal.call('POST', `/automations/${target}/seen`, { attention_cursor: 'att1:0' }));
      notFound(await mal.call('POST', `/automations/${target}/discuss`, { request_id: 'd', occurrence_index: 1, prompt: 'x' }));
      notFound(await mal.call('POST', '/commands', { command_id: 'cc', run_id: target, type: 'automation.pause' }));
    }
    // The run types aimed at it are "no such run" for mal (409 would tell him it is an automation).
    for (const type of ['cancel', 'pause', 'emit_event']) {
      const res = await mal.call('POST', '/commands', { command_id: `r-${type}`, run_id: id, type, payload: { name: 'go' } });
      expect(res.statusCode, res.body).to.equal(404);
    }
    const read = await ann.summary(id);
    expect(read).to.include({ status: 'active', revision: 1 });
    expect(read.occurrence_count).to.equal(0);
  });

  it("another account's emit_event never fires an event trigger (only the owner's events do)", async () => {
    const own = await mal.create({ request_id: 'mal-go', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } }, trigger: { source_id: 'event', source_version: 1, config: { name: 'go' } } });
    const started = await mal.call('POST', '/runs/start', { bundle_id: 'echo', flow_id: 'echo', input_data: { prompt: 'x' } });
    const runId = started.json<{ run_id: string }>().run_id;
    await until(async () => (await mal.call('GET', `/runs/${runId}`)).json<{ status: string }>().status, { what: "mal's run to end", ok: (s) => s === 'completed' });
    const emitted = await mal.call('POST', '/commands', { command_id: 'emit-go', run_id: runId, type: 'emit_event', payload: { name: 'go' } });
    expect(emitted.statusCode, emitted.body).to.equal(200);
    await mal.untilOccurrences(own, "mal's own event automation to fire", (rows) => rows[0]?.status === 'completed');
    expect(await ann.occurrences(id)).to.have.length(0);
  });

  it("forged session ids reach nothing: another account's discussion is 409, an automation session replays only the caller's own turns", async () => {
    const forged = await mal.call('POST', '/runs/start', { bundle_id: 'echo', flow_id: 'echo', session_id: discussion, input_data: { prompt: 'x', use_session_history: true } });
    expect(forged.statusCode, forged.body).to.equal(409);
    expect(forged.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('session_attribution_failed');
    const replay = await mal.call('POST', '/runs/start', { bundle_id: 'echo', flow_id: 'echo', session_id: `automation:${growing}`, input_data: { prompt: 'tell me', use_session_history: true } });
    expect(replay.statusCode, replay.body).to.equal(200);
    const runId = replay.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await mal.call('GET', `/runs/${runId}`)).json<{ status: string; session_history: { seeded: number } | null; output?: unknown }>(), { what: 'the replayed run to end', ok: (r) => r.status === 'completed' });
    expect(run.session_history?.seeded ?? 0).to.equal(0);
    expect(JSON.stringify(run)).not.to.contain('diary secret');
    // And ann's automation session is untouched by mal's run.
    const listed = (await ann.call('GET', `/runs?session_id=${encodeURIComponent(`automation:${growing}`)}`)).json<{ items: Array<{ run_id: string }> }>().items;
    expect(listed.map((r) => r.run_id)).not.to.include(runId);
  });

  it("a definition (create or revise) cannot name another account's private bundle", async () => {
    const made = await mal.call('POST', '/automations', { request_id: 'steal', target: { bundle_ref: 'annonly', flow_id: 'echo' }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    expect(made.statusCode, made.body).to.equal(422);
    const own = await mal.create({ request_id: 'own', target: { bundle_ref: 'echo', flow_id: 'echo' }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const revised = await mal.call('PATCH', `/automations/${own}`, { command_id: 'steal', changes: { target: { bundle_ref: 'annonly@1.0.0', flow_id: 'echo' } } });
    expect(revised.statusCode, revised.body).to.equal(422);
  });

  it('without a token every route is 401 unauthorized and nothing else', async () => {
    for (const [method, url] of [['GET', '/automations'], ['POST', '/automations'], ['GET', `/automations/${id}`], ['PATCH', `/automations/${id}`], ['POST', `/automations/${id}/commands`], ['GET', `/automations/${id}/occurrences`], ['GET', `/automations/${id}/attention`], ['POST', `/automations/${id}/seen`], ['POST', `/automations/${id}/discuss`], ['GET', `/automations/${id}/revisions`], ['GET', '/trigger-sources'], ['POST', '/automations/schedule-preview']] as const) {
      const res = await k.inject({ method, url: `/api/gateway${url}`, ...(method === 'GET' ? {} : { payload: {} }) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).to.equal(401);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code).to.equal('unauthorized');
    }
    const bad = await k.inject({ method: 'GET', url: `/api/gateway/automations/${id}`, token: 'not-a-token' });
    expect(bad.statusCode).to.equal(401);
  });
});
