import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationIdFor, automationsPlugin, uuid5 } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { edges, node } from './helpers/flow-builder.js';

/**
 * Automation definitions through the HTTP API (seed 000 §4.8, §7; reference gateway-surfaces §3.3,
 * §3.6, §3.10): create (identity, target resolution, input protection, validation), read, list,
 * revisions, and the error envelope on every refusal, the kernel's own included.
 */

const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

interface Detail { reason_code: string; message: string; field?: string; command_id?: string }
interface Summary { automation_id: string; title: string; status: string; revision: number; capabilities: string[]; trigger: { binding_id: string; source_id: string; source_version: number }; context_mode: string; attention: { cursor: string; unseen_count: number }; schedule_rule_text: string; next_fire_at?: string; growing_max_tokens: number | null }
interface Created { automation_id: string; revision: number; summary: Summary }
interface Definition { revision: number; title: string; target: { workflow_id: string; bundle_ref: string; flow_id: string; interface: string | null; input_data: Record<string, unknown> }; policy: Record<string, unknown>; context: Record<string, unknown>; session_id: string }

const MANUAL = { source_id: 'manual', source_version: 1, config: {} };

describe('automations: definitions, listing and the error envelope (issue 15)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let carol = '';

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { limits: { maxAutomationsPerAccount: 30 } } }] });
    bob = await createAccount(k, 'bob');
    carol = await createAccount(k, 'carol');
    for (const token of [bob, carol]) await uploadBundleAs(k, token, 'echo', echoFlow);
  });
  after(async () => {
    await k?.stop();
  });

  const create = (token: string, body: Record<string, unknown>) => k.inject({ method: 'POST', url: '/api/gateway/automations', token, payload: body });
  const echoTarget = (input: Record<string, unknown> = { prompt: 'hello' }) => ({ bundle_ref: 'echo', flow_id: 'echo', input_data: input });
  const refusal = (res: { statusCode: number; body: string; json<T>(): T }, status: number, reason: string, field?: string) => {
    expect(res.statusCode, res.body).to.equal(status);
    const detail = res.json<{ detail: Detail }>().detail;
    expect(detail.reason_code, res.body).to.equal(reason);
    expect(detail.message).to.be.a('string').and.not.equal('');
    if (field !== undefined) expect(detail.field, res.body).to.equal(field);
    return detail;
  };

  describe('POST /automations', () => {
    it('creates an automation with a concrete target, a default title from the workflow and the documented defaults', async () => {
      const res = await create(bob, { request_id: 'create-1', target: echoTarget(), trigger: MANUAL });
      expect(res.statusCode, res.body).to.equal(200);
      const created = res.json<Created>();
      expect(created.automation_id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(created.revision).to.equal(1);
      expect(created.summary).to.include({ automation_id: created.automation_id, status: 'active', revision: 1, context_mode: 'independent' });
      expect(created.summary.title).to.be.a('string').and.not.equal('');
      expect(created.summary.capabilities).to.deep.equal(['revise', 'pause', 'resume', 'run_now', 'stop_current', 'archive', 'discuss']);
      expect(created.summary.trigger).to.include({ source_id: 'manual', source_version: 1 });
      expect(created.summary.attention).to.include({ cursor: 'att1:0', unseen_count: 0 });
      expect(created.summary.schedule_rule_text).to.equal('Manual runs only');
      expect(created.summary).to.not.have.property('next_fire_at');
      const read = await k.inject({ url: `/api/gateway/automations/${created.automation_id}`, token: bob });
      expect(read.statusCode, read.body).to.equal(200);
      const { definition, active_revision } = read.json<{ definition: Definition; active_revision: number }>();
      expect(active_revision).to.equal(1);
      expect(definition.target).to.deep.include({ workflow_id: 'echo@1.0.0:echo', bundle_ref: 'echo@1.0.0', flow_id: 'echo', interface: null });
      expect(definition.target.input_data).to.deep.equal({ prompt: 'hello', workspace: { configured: false }, use_context: true });
      expect(definition.policy).to.deep.equal({ serial: true, misfire: 'coalesce', failure: 'continue', retry: { max_attempts: 3, backoff: { initial: '30s', factor: 2, max: '10m' } }, tool_approval: 'auto' });
      expect(definition.session_id).to.equal(`automation:${created.automation_id}`);
    });

    it('is idempotent by request_id: the same request answers the same automation, another request under it is 409 identity_conflict', async () => {
      const body = { request_id: 'same-request', title: 'Morning digest', target: echoTarget(), trigger: MANUAL };
      const [a, b] = await Promise.all([create(bob, body), create(bob, body)]);
      expect([a.statusCode, b.statusCode], a.body + b.body).to.deep.equal([200, 200]);
      expect(a.json<Created>().automation_id).to.equal(b.json<Created>().automation_id);
      const again = await create(bob, body);
      expect(again.json<Created>().automation_id).to.equal(a.json<Created>().automation_id);
      refusal(await create(bob, { ...body, title: 'Evening digest' }), 409, 'identity_conflict', 'request_id');
      // Another account's same request_id is its own automation.
      const carols = await create(carol, body);
      expect(carols.statusCode, carols.body).to.equal(200);
      expect(carols.json<Created>().automation_id).to.not.equal(a.json<Created>().automation_id);
      const list = (await k.inject({ url: '/api/gateway/automations?limit=200', token: bob })).json<{ items: Summary[] }>().items;
      expect(list.filter((s) => s.automation_id === a.json<Created>().automation_id)).to.have.length(1);
    });

    it('refuses unknown fields at every level (422 invalid_request at the top, invalid_definition inside the definition)', async () => {
      refusal(await create(bob, { request_id: 'unknown-1', target: echoTarget(), trigger: MANUAL, colour: 'red' }), 422, 'invalid_request', 'colour');
      refusal(await create(bob, { request_id: 'unknown-2', target: { ...echoTarget(), bundle_id: 'echo' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.bundle_id');
      refusal(await create(bob, { request_id: 'unknown-3', target: echoTarget(), trigger: MANUAL, policy: { misfire: 'skip', colour: 1 } }), 422, 'invalid_definition', 'policy.colour');
      refusal(await create(bob, { request_id: 'unknown-4', target: echoTarget(), trigger: MANUAL, policy: { retry: { backoff: { jitter: true } } } }), 422, 'invalid_definition', 'policy.retry.backoff.jitter');
      refusal(await create(bob, { request_id: 'unknown-5', target: echoTarget(), trigger: MANUAL, context: { mode: 'growing', growing: { max_tokens: 5000, window: 2 } } }), 422, 'invalid_definition', 'context.growing.window');
      refusal(await create(bob, { request_id: 'unknown-6', target: echoTarget({ workspace: { posture: 'allowed_only', folders: [], extra: 1 } }), trigger: MANUAL }), 422, 'invalid_definition', 'target.input_data.workspace.extra');
    });

    it('resolves the target now: a missing bundle or entrypoint is 422 invalid_definition naming the field', async () => {
      refusal(await create(bob, { request_id: 'target-1', target: { bundle_ref: 'no-such-bundle', flow_id: 'echo' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.bundle_ref');
      refusal(await create(bob, { request_id: 'target-2', target: { bundle_ref: 'echo', flow_id: 'nope' }, trigger: MANUAL }), 422, 'invalid_definition');
      refusal(await create(bob, { request_id: 'target-3', target: { flow_id: 'echo' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.bundle_ref');
      refusal(await create(bob, { request_id: 'target-4', target: { bundle_ref: 'echo', flow_id: 'echo', interface: 'chat.agent.v1' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.interface');
      refusal(await create(bob, { request_id: 'target-5', target: { flow_id: '@default' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.interface');
      refusal(await create(bob, { request_id: 'target-6', target: { flow_id: '@default', interface: 'chat.agent.v1', bundle_ref: 'echo' }, trigger: MANUAL }), 422, 'invalid_definition', 'target.bundle_ref');
      refusal(await create(bob, { request_id: 'target-7', target: { ...echoTarget(), input_data: ['not', 'an', 'object'] }, trigger: MANUAL }), 422, 'invalid_definition', 'target.input_data');
      // Another account's private bundle is not there for bob.
      await uploadBundleAs(k, carol, 'carols-only', echoFlow);
      refusal(await create(bob, { request_id: 'target-8', target: { bundle_ref: 'carols-only', flow_id: 'echo' }, trigger: MANUAL }), 422, 'invalid_definition');
    });

    it('resolves @default with an interface now and stores the concrete workflow; a default that cannot run keeps its 409', async () => {
      const res = await create(bob, { request_id: 'default-1', target: { flow_id: '@default', interface: 'abstractcode.agent.v1', input_data: { prompt: 'hi' } }, trigger: MANUAL });
      expect(res.statusCode, res.body).to.equal(200);
      const { definition } = (await k.inject({ url: `/api/gateway/automations/${res.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>();
      expect(definition.target.flow_id).to.not.equal('@default');
      expect(definition.target.bundle_ref).to.match(/^keel-chat@.+$/);
      expect(definition.target.interface).to.equal('abstractcode.agent.v1');
      const none = await create(bob, { request_id: 'default-2', target: { flow_id: '@default', interface: 'nobody.agent.v1' }, trigger: MANUAL });
      expect(refusal(none, 409, 'invalid_state').message).to.contain('agents.default_workflow.nobody.agent.v1');
    });

    it('pins a version-less bundle_ref to the version loaded now', async () => {
      const res = await create(bob, { request_id: 'pin-1', target: { bundle_ref: 'echo', flow_id: 'echo' }, trigger: MANUAL });
      const id = res.json<Created>().automation_id;
      const { definition } = (await k.inject({ url: `/api/gateway/automations/${id}`, token: bob })).json<{ definition: Definition }>();
      expect(definition.target.bundle_ref).to.equal('echo@1.0.0');
    });

    it('protects the inputs: server-owned keys dropped, only the allowed _runtime keys kept, workspace choices normalised', async () => {
      const res = await create(bob, {
        request_id: 'protect-1',
        target: echoTarget({
          prompt: 'p',
          _meta: { occurrence: { automation_id: 'forged' } },
          workflow_selection: { workflow_id: 'forged' },
          workspace_read_only: true,
          workspace_access_mode: 'all_except_ignored',
          _gateway_workspace: { level: 'run' },
          _runtime: { model: 'm1', provider: 'p1', stream: false, tool_policy: { auto_approve_tools: ['*'] }, skills_block: 'x' },
        }),
        trigger: MANUAL,
      });
      expect(res.statusCode, res.body).to.equal(200);
      const { definition } = (await k.inject({ url: `/api/gateway/automations/${res.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>();
      expect(definition.target.input_data).to.deep.equal({ prompt: 'p', _runtime: { model: 'm1', provider: 'p1', stream: false }, workspace: { configured: false }, use_context: true });

      const explicit = await create(bob, { request_id: 'protect-2', target: echoTarget({ workspace: { posture: 'allowed_only', default_mode: 'ro', folders: [{ path: '/tmp', mode: 'ro' }] } }), trigger: MANUAL });
      const def2 = (await k.inject({ url: `/api/gateway/automations/${explicit.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>().definition;
      expect(def2.target.input_data.workspace).to.deep.equal({ posture: 'allowed_only', default_mode: 'ro', folders: [{ path: '/tmp', mode: 'ro' }] });

      const legacy = await create(bob, { request_id: 'protect-3', target: echoTarget({ workspace_allowed_paths: ['/tmp'] }), trigger: MANUAL });
      const def3 = (await k.inject({ url: `/api/gateway/automations/${legacy.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>().definition;
      expect(def3.target.input_data.workspace).to.deep.equal({ posture: 'allowed_only', default_mode: 'ro', folders: [{ path: '/tmp', mode: 'rw' }] });
      expect(def3.target.input_data).to.not.have.property('workspace_allowed_paths');

      const stated = await create(bob, { request_id: 'protect-4', target: echoTarget({ workspace: { configured: false } }), trigger: MANUAL });
      const def4 = (await k.inject({ url: `/api/gateway/automations/${stated.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>().definition;
      expect(def4.target.input_data.workspace).to.deep.equal({ configured: false });

      refusal(await create(bob, { request_id: 'protect-5', target: echoTarget({ workspace: { folders: [{ path: 'relative/dir', mode: 'rw' }] } }), trigger: MANUAL }), 422, 'invalid_definition', 'target.input_data.workspace.folders[0].path');
      refusal(await create(bob, { request_id: 'protect-6', target: echoTarget({ workspace: { folders: [{ path: '/tmp/../etc', mode: 'rw' }] } }), trigger: MANUAL }), 422, 'invalid_definition', 'target.input_data.workspace.folders[0].path');
      refusal(await create(bob, { request_id: 'protect-7', target: echoTarget({ _runtime: { stream: 'yes' } }), trigger: MANUAL }), 422, 'invalid_definition', 'target.input_data._runtime.stream');
    });

    it('refuses hostile bodies in the envelope: deep nesting, a __proto__ key (the kernel\'s JSON reader), wrong types', async () => {
      const deep = `{"request_id": "deep", "trigger": {"source_id": "manual"}, "target": {"bundle_ref": "echo", "flow_id": "echo", "input_data": ${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}}}`;
      refusal(await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: deep, headers: { 'content-type': 'application/json' } }), 422, 'invalid_request');
      const proto = '{"request_id": "proto", "trigger": {"source_id": "manual", "source_version": 1, "config": {}}, "target": {"bundle_ref": "echo", "flow_id": "echo", "input_data": {"__proto__": {"workspace": {"posture": "any_except_denied"}}}}}';
      refusal(await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: proto, headers: { 'content-type': 'application/json' } }), 422, 'invalid_request');
      refusal(await create(bob, { request_id: 'types-1', target: 'echo', trigger: MANUAL }), 422, 'invalid_request', 'target');
      refusal(await create(bob, { request_id: 'types-2', target: echoTarget(), trigger: MANUAL, policy: [] }), 422, 'invalid_request', 'policy');
      refusal(await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: '[]', headers: { 'content-type': 'application/json' } }), 422, 'invalid_request');
      refusal(await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: 'request_id=x', headers: { 'content-type': 'text/plain' } }), 422, 'invalid_request');
    });

    it('checks the title: at most 120 characters, not empty', async () => {
      const ok = await create(bob, { request_id: 'title-1', title: 'x'.repeat(120), target: echoTarget(), trigger: MANUAL });
      expect(ok.statusCode, ok.body).to.equal(200);
      refusal(await create(bob, { request_id: 'title-2', title: 'x'.repeat(121), target: echoTarget(), trigger: MANUAL }), 422, 'invalid_definition', 'title');
      refusal(await create(bob, { request_id: 'title-3', title: '   ', target: echoTarget(), trigger: MANUAL }), 422, 'invalid_definition', 'title');
      refusal(await create(bob, { request_id: 'title-4', title: 'two\nlines', target: echoTarget(), trigger: MANUAL }), 422, 'invalid_definition', 'title');
    });

    it('takes an explicit misfire policy (coalesce, skip, all), retries and context; other values are refused', async () => {
      const res = await create(bob, {
        request_id: 'policy-1',
        target: echoTarget(),
        trigger: MANUAL,
        policy: { misfire: 'all', retry: { max_attempts: 5, backoff: { initial: '10s' } }, tool_approval: 'ask' },
        context: { mode: 'growing' },
      });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<Created>().summary).to.include({ context_mode: 'growing', growing_max_tokens: 50_000 });
      const { definition } = (await k.inject({ url: `/api/gateway/automations/${res.json<Created>().automation_id}`, token: bob })).json<{ definition: Definition }>();
      expect(definition.policy).to.deep.equal({ serial: true, misfire: 'all', failure: 'continue', retry: { max_attempts: 5, backoff: { initial: '10s', factor: 2, max: '10m' } }, tool_approval: 'ask' });
      const bad = (policy: unknown, context?: unknown) => create(bob, { request_id: `policy-bad-${crypto.randomUUID()}`, target: echoTarget(), trigger: MANUAL, policy, ...(context ? { context } : {}) });
      refusal(await bad({ misfire: 'latest' }), 422, 'invalid_definition', 'policy.misfire');
      refusal(await bad({ serial: false }), 422, 'unsupported_feature', 'policy.serial');
      refusal(await bad({ failure: 'stop' }), 422, 'unsupported_feature', 'policy.failure');
      refusal(await bad({ retry: { max_attempts: 11 } }), 422, 'invalid_definition', 'policy.retry.max_attempts');
      refusal(await bad({ retry: { backoff: { initial: '20m' } } }), 422, 'invalid_definition', 'policy.retry.backoff');
      refusal(await bad({ retry: { backoff: { factor: 0.5 } } }), 422, 'invalid_definition', 'policy.retry.backoff.factor');
      refusal(await bad(undefined, { mode: 'growing', growing: { summary: true } }), 422, 'unsupported_feature', 'context.growing.summary');
      refusal(await bad(undefined, { mode: 'forever' }), 422, 'invalid_definition', 'context.mode');
    });

    it('needs a trigger from a known source', async () => {
      refusal(await create(bob, { request_id: 'trigger-1', target: echoTarget() }), 422, 'invalid_request', 'trigger');
      refusal(await create(bob, { request_id: 'trigger-2', target: echoTarget(), trigger: { source_id: 'email.received', source_version: 1, config: {} } }), 422, 'unknown_trigger_source');
      const scheduled = await create(bob, { request_id: 'trigger-3', target: echoTarget(), trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } } });
      expect(scheduled.statusCode, scheduled.body).to.equal(200);
      // A time trigger is armed at creation: the answer names its next run.
      expect(scheduled.json<Created>().summary.next_fire_at).to.be.a('string');
    });

    it('checks request_id: non-empty, at most limits.maxIdLength characters, no control characters', async () => {
      refusal(await create(bob, { request_id: '', target: echoTarget(), trigger: MANUAL }), 422, 'invalid_request', 'request_id');
      refusal(await create(bob, { request_id: 'r'.repeat(201), target: echoTarget(), trigger: MANUAL }), 422, 'invalid_request', 'request_id');
      refusal(await create(bob, { request_id: 'bad\u0000id', target: echoTarget(), trigger: MANUAL }), 422, 'invalid_request', 'request_id');
      refusal(await create(bob, { request_id: 42, target: echoTarget(), trigger: MANUAL }), 422, 'invalid_request', 'request_id');
      const ok = await create(bob, { request_id: 'r'.repeat(200), target: echoTarget(), trigger: MANUAL });
      expect(ok.statusCode, ok.body).to.equal(200);
    });

    it('refuses a body that is not JSON or too large, in the envelope', async () => {
      const bad = await k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: '{"request_id": ', headers: { 'content-type': 'application/json' } });
      expect(refusal(bad, 422, 'invalid_request').message).to.equal('The request body is not valid JSON.');
      const huge = await create(bob, { request_id: 'huge', target: echoTarget({ prompt: 'x'.repeat(11 * 1024 * 1024) }), trigger: MANUAL });
      refusal(huge, 413, 'invalid_request');
      const big = await create(bob, { request_id: 'big', target: echoTarget({ prompt: 'x'.repeat(300 * 1024) }), trigger: MANUAL });
      refusal(big, 422, 'invalid_definition', 'target.input_data');
    });

    it('caps the automations an account keeps that are not archived (limits.maxAutomationsPerAccount)', async () => {
      const dave = await createAccount(k, 'dave');
      await uploadBundleAs(k, dave, 'echo', echoFlow);
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) {
        const res = await create(dave, { request_id: `cap-${i}`, target: echoTarget(), trigger: MANUAL });
        expect(res.statusCode, res.body).to.equal(200);
        ids.push(res.json<Created>().automation_id);
      }
      refusal(await create(dave, { request_id: 'cap-30', target: echoTarget(), trigger: MANUAL }), 409, 'invalid_state');
      const archived = await k.inject({ method: 'POST', url: `/api/gateway/automations/${ids[0]}/commands`, token: dave, payload: { command_id: 'cap-archive', type: 'automation.archive' } });
      expect(archived.statusCode, archived.body).to.equal(200);
      expect((await create(dave, { request_id: 'cap-30', target: echoTarget(), trigger: MANUAL })).statusCode).to.equal(200);
      // Unarchiving would go past the cap again.
      refusal(await k.inject({ method: 'POST', url: `/api/gateway/automations/${ids[0]}/commands`, token: dave, payload: { command_id: 'cap-unarchive', type: 'automation.unarchive' } }), 409, 'invalid_state');
    });
  });

  describe('GET /automations', () => {
    let erin = '';
    const made: string[] = [];
    before(async () => {
      erin = await createAccount(k, 'erin');
      await uploadBundleAs(k, erin, 'echo', echoFlow);
      for (let i = 0; i < 5; i++) made.push((await create(erin, { request_id: `list-${i}`, title: `List ${i}`, target: echoTarget(), trigger: MANUAL })).json<Created>().automation_id);
      const archive = await k.inject({ method: 'POST', url: `/api/gateway/automations/${made[1]}/commands`, token: erin, payload: { command_id: 'list-archive', type: 'automation.archive' } });
      expect(archive.statusCode, archive.body).to.equal(200);
      const pause = await k.inject({ method: 'POST', url: `/api/gateway/automations/${made[2]}/commands`, token: erin, payload: { command_id: 'list-pause', type: 'automation.pause' } });
      expect(pause.statusCode, pause.body).to.equal(200);
    });
    const list = async (query: string, token = erin) => {
      const res = await k.inject({ url: `/api/gateway/automations${query}`, token });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ items: Summary[]; next_cursor: string | null; archived_automations: number }>();
    };

    it('lists newest first, leaves archived ones out and counts them', async () => {
      const page = await list('');
      expect(page.items.map((s) => s.automation_id)).to.deep.equal([made[4], made[3], made[2], made[0]]);
      expect(page.next_cursor).to.equal(null);
      expect(page.archived_automations).to.equal(1);
    });

    it('pages with cursors (limit 1..200)', async () => {
      const first = await list('?limit=2');
      expect(first.items.map((s) => s.automation_id)).to.deep.equal([made[4], made[3]]);
      expect(first.next_cursor).to.be.a('string');
      const second = await list(`?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
      expect(second.items.map((s) => s.automation_id)).to.deep.equal([made[2], made[0]]);
      const third = second.next_cursor ? await list(`?limit=2&cursor=${encodeURIComponent(second.next_cursor)}`) : { items: [], next_cursor: null };
      expect(third.items).to.deep.equal([]);
      expect(third.next_cursor).to.equal(null);
      refusal(await k.inject({ url: '/api/gateway/automations?limit=0', token: erin }), 422, 'invalid_request', 'limit');
      refusal(await k.inject({ url: '/api/gateway/automations?limit=201', token: erin }), 422, 'invalid_request', 'limit');
      refusal(await k.inject({ url: '/api/gateway/automations?cursor=garbage', token: erin }), 422, 'invalid_request', 'cursor');
      const forged = `auto1:${Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')}`;
      refusal(await k.inject({ url: `/api/gateway/automations?cursor=${forged}`, token: erin }), 422, 'invalid_request', 'cursor');
    });

    it('filters by status (a comma list) and archived_only', async () => {
      expect((await list('?status=paused')).items.map((s) => s.automation_id)).to.deep.equal([made[2]]);
      expect((await list('?status=archived,paused')).items.map((s) => s.automation_id)).to.deep.equal([made[2], made[1]]);
      expect((await list('?archived_only=true')).items.map((s) => s.automation_id)).to.deep.equal([made[1]]);
      refusal(await k.inject({ url: '/api/gateway/automations?status=sleeping', token: erin }), 422, 'invalid_request', 'status');
      refusal(await k.inject({ url: '/api/gateway/automations?status=active&archived_only=true', token: erin }), 422, 'invalid_request', 'archived_only');
      refusal(await k.inject({ url: '/api/gateway/automations?changed_since=2026-01-01T00:00:00Z', token: erin }), 422, 'unsupported_feature', 'changed_since');
      refusal(await k.inject({ url: '/api/gateway/automations?colour=red', token: erin }), 422, 'invalid_request', 'colour');
    });

    it('shows an account only its own automations', async () => {
      const bobs = await list('?limit=200', bob);
      expect(bobs.items.map((s) => s.automation_id)).to.not.include.members(made);
    });
  });

  describe('reading and security', () => {
    let id = '';
    before(async () => {
      id = (await create(bob, { request_id: 'security-1', target: echoTarget(), trigger: MANUAL })).json<Created>().automation_id;
    });

    it('answers 401 unauthorized in the envelope without a token or with a wrong one, on routes and on unmatched paths', async () => {
      for (const url of ['/api/gateway/automations', `/api/gateway/automations/${id}`, `/api/gateway/automations/${id}/revisions`, `/api/gateway/automations/${id}/no-such-thing`, '/api/gateway/trigger-sources']) {
        refusal(await k.inject({ url }), 401, 'unauthorized');
        refusal(await k.inject({ url, headers: { authorization: 'Bearer not-a-token' } }), 401, 'unauthorized');
      }
      refusal(await k.inject({ method: 'POST', url: '/api/gateway/automations', payload: { request_id: 'x', target: echoTarget(), trigger: MANUAL } }), 401, 'unauthorized');
      refusal(await k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, payload: { command_id: 'c', type: 'automation.pause' } }), 401, 'unauthorized');
      refusal(await k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, payload: { command_id: 'c', changes: { title: 'x' } } }), 401, 'unauthorized');
    });

    it('answers unmatched paths and methods below /automations in the envelope', async () => {
      refusal(await k.inject({ url: `/api/gateway/automations/${id}/no-such-thing`, token: bob }), 404, 'not_found');
      refusal(await k.inject({ method: 'DELETE', url: `/api/gateway/automations/${id}`, token: bob }), 405, 'invalid_request');
    });

    it('answers another account\'s automation, and ids that are no automation, 404 automation_not_found', async () => {
      refusal(await k.inject({ url: `/api/gateway/automations/${id}`, token: carol }), 404, 'automation_not_found');
      refusal(await k.inject({ url: `/api/gateway/automations/${id}/revisions`, token: carol }), 404, 'automation_not_found');
      for (const hostile of [crypto.randomUUID(), 'not-an-id', 'x'.repeat(5000), '%2e%2e%2fadmin', encodeURIComponent('\u0000'), encodeURIComponent('💥'.repeat(300))]) {
        refusal(await k.inject({ url: `/api/gateway/automations/${hostile}`, token: bob }), 404, 'automation_not_found');
      }
    });

    it('keeps every revision and lists them newest first', async () => {
      const patch = await k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token: bob, payload: { command_id: 'rev-1', expected_revision: 1, changes: { title: 'Second' } } });
      expect(patch.statusCode, patch.body).to.equal(200);
      const patch2 = await k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token: bob, payload: { command_id: 'rev-2', expected_revision: 2, changes: { title: 'Third' } } });
      expect(patch2.statusCode, patch2.body).to.equal(200);
      const res = await k.inject({ url: `/api/gateway/automations/${id}/revisions`, token: bob });
      expect(res.statusCode, res.body).to.equal(200);
      const body = res.json<{ items: Definition[]; next_cursor: string | null; active_revision: number }>();
      expect(body.items.map((d) => [d.revision, d.title])).to.deep.equal([[3, 'Third'], [2, 'Second'], [1, body.items[2]!.title]]);
      expect(body.active_revision).to.equal(3);
      const first = (await k.inject({ url: `/api/gateway/automations/${id}/revisions?limit=1`, token: bob })).json<{ items: Definition[]; next_cursor: string }>();
      expect(first.items.map((d) => d.revision)).to.deep.equal([3]);
      const rest = (await k.inject({ url: `/api/gateway/automations/${id}/revisions?limit=5&cursor=${first.next_cursor}`, token: bob })).json<{ items: Definition[]; next_cursor: string | null }>();
      expect(rest.items.map((d) => d.revision)).to.deep.equal([2, 1]);
      expect(rest.next_cursor).to.equal(null);
      refusal(await k.inject({ url: `/api/gateway/automations/${id}/revisions?cursor=rev1:abc`, token: bob }), 422, 'invalid_request', 'cursor');
    });

    it('answers a request from an origin that is not allowed 403 forbidden in the envelope', async () => {
      for (const url of ['/api/gateway/automations', `/api/gateway/automations/${id}`, '/api/gateway/trigger-sources']) {
        refusal(await k.inject({ url, token: bob, headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
      }
    });

    it('names an automation uuid5(namespace, "<tenant>:<account>:<request_id>") (RFC 4122 version 5, as Python\'s uuid5)', async () => {
      // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
      expect(uuid5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).to.equal('886313e1-3b8a-5372-9b90-0c9aee199e5d');
      const me = (await k.inject({ url: '/api/gateway/me', token: bob })).json<{ account: string; tenant: string }>();
      expect(id).to.equal(automationIdFor(me.tenant, me.account, 'security-1'));
      expect(id).to.equal(uuid5('6f0c1d3e-5b7a-4c2e-9d8f-2a1b3c4d5e6f', `${me.tenant}:${me.account}:security-1`));
    });

    it('describes the routes in /openapi.json', async () => {
      const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, unknown>> }>();
      expect(doc.paths['/api/gateway/automations']).to.have.keys('get', 'post');
      expect(doc.paths['/api/gateway/automations/{automation_id}']).to.have.keys('get', 'patch');
      expect(doc.paths['/api/gateway/automations/{automation_id}/commands']).to.have.keys('post');
      expect(doc.paths['/api/gateway/automations/{automation_id}/revisions']).to.have.keys('get');
    });
  });
});

describe('automations: the limits follow their settings (issue 15)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';

  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { limits: { maxIdLength: 16, maxPageSize: 5, defaultPageSize: 2, maxListScan: 3, maxInputDataBytes: 2048 } } }],
    });
    bob = await createAccount(k, 'bob');
    await uploadBundleAs(k, bob, 'echo', echoFlow);
  });
  after(async () => {
    await k?.stop();
  });

  const create = (body: Record<string, unknown>) => k.inject({ method: 'POST', url: '/api/gateway/automations', token: bob, payload: { target: { bundle_ref: 'echo', flow_id: 'echo' }, trigger: MANUAL, ...body } });
  const detailOf = (res: { json<T>(): T }) => res.json<{ detail: Detail }>().detail;

  it('bounds ids, inputs and pages by limits.*', async () => {
    expect(detailOf(await create({ request_id: 'x'.repeat(17) }))).to.include({ reason_code: 'invalid_request', field: 'request_id' });
    expect(detailOf(await create({ request_id: 'big', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'x'.repeat(3000) } } }))).to.include({ reason_code: 'invalid_definition', field: 'target.input_data' });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await create({ request_id: `limits-${i}` });
      expect(res.statusCode, res.body).to.equal(200);
      ids.push(res.json<Created>().automation_id);
    }
    const paused = await k.inject({ method: 'POST', url: `/api/gateway/automations/${ids[0]}/commands`, token: bob, payload: { command_id: 'p', type: 'automation.pause' } });
    expect(paused.statusCode, paused.body).to.equal(200);
    const page = (await k.inject({ url: '/api/gateway/automations', token: bob })).json<{ items: Summary[]; next_cursor: string | null }>();
    expect(page.items).to.have.length(2);
    expect((await k.inject({ url: '/api/gateway/automations?limit=6', token: bob })).statusCode).to.equal(422);
    // A filter that skips most records reads at most maxListScan of them per page: the page ends early with a cursor.
    let cursor: string | null = null;
    const found: string[] = [];
    let pages = 0;
    do {
      const res = await k.inject({ url: `/api/gateway/automations?status=paused&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token: bob });
      const body = res.json<{ items: Summary[]; next_cursor: string | null }>();
      found.push(...body.items.map((s) => s.automation_id));
      cursor = body.next_cursor;
      pages++;
    } while (cursor && pages < 10);
    expect(found).to.deep.equal([ids[0]]);
    expect(pages).to.be.greaterThan(1);
  });
});
