import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationsPlugin } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { askUserFlow, edges, node } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

/**
 * Automation commands through the HTTP API (seed 000 §3, §4.4, §4.8; reference gateway-surfaces
 * §3.7): PATCH (revise) and POST /automations/{id}/commands with every door check in its order and
 * every state rule, receipts and their idempotency, and the automation commands of POST /commands.
 */

const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

interface Detail { reason_code: string; message: string; field?: string; command_id?: string }
interface Receipt { command_id: string; accepted: boolean; duplicate: boolean; seq: number }
interface Summary { status: string; revision: number; title: string; capabilities: string[]; current_occurrence: { index: number; run_id: string; status: string } | null; trigger: { binding_id: string; source_id: string }; next_fire_at?: string }
interface Read { definition: { revision: number; title: string; policy: { misfire: string; retry: { max_attempts: number; backoff: { initial: string } } }; target: { input_data: Record<string, unknown> }; archived_at: string | null }; active_revision: number; summary: Summary }

const MANUAL = { source_id: 'manual', source_version: 1, config: {} };

describe('automations: commands, revisions and state rules (issue 15)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  let bob = '';
  let carol = '';

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { scheduler: { pollMs: 50 } } }] });
    bob = await createAccount(k, 'bob');
    carol = await createAccount(k, 'carol');
    for (const token of [bob, carol]) {
      await uploadBundleAs(k, token, 'echo', echoFlow);
      await uploadBundleAs(k, token, 'ask', askUserFlow());
    }
  });
  after(async () => {
    await k?.stop();
  });

  const make = async (token: string, extra: Record<string, unknown> = {}) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/automations', token, payload: { request_id: crypto.randomUUID(), target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'hi' } }, trigger: MANUAL, ...extra } });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ automation_id: string }>().automation_id;
  };
  const command = (token: string, id: string, type: string, extra: Record<string, unknown> = {}) =>
    k.inject({ method: 'POST', url: `/api/gateway/automations/${id}/commands`, token, payload: { command_id: crypto.randomUUID(), type, ...extra } });
  const patch = (token: string, id: string, body: Record<string, unknown>) => k.inject({ method: 'PATCH', url: `/api/gateway/automations/${id}`, token, payload: body });
  const read = async (token: string, id: string) => (await k.inject({ url: `/api/gateway/automations/${id}`, token })).json<Read>();
  const accepted = (res: { statusCode: number; body: string; json<T>(): T }) => {
    expect(res.statusCode, res.body).to.equal(200);
    const receipt = res.json<Receipt>();
    expect(receipt.accepted).to.equal(true);
    return receipt;
  };
  const refusal = (res: { statusCode: number; body: string; json<T>(): T }, status: number, reason: string, field?: string) => {
    expect(res.statusCode, res.body).to.equal(status);
    const detail = res.json<{ detail: Detail }>().detail;
    expect(detail.reason_code, res.body).to.equal(reason);
    if (field !== undefined) expect(detail.field, res.body).to.equal(field);
    return detail;
  };

  describe('PATCH /automations/{id} (revise)', () => {
    it('applies a revise as a new revision and answers a receipt; policy fields merge, the rest is replaced', async () => {
      const id = await make(bob, { title: 'First', policy: { misfire: 'skip' } });
      const receipt = accepted(await patch(bob, id, { command_id: 'revise-1', expected_revision: 1, changes: { title: 'Second', policy: { retry: { max_attempts: 4 } } } }));
      expect(receipt).to.deep.equal({ command_id: 'revise-1', accepted: true, duplicate: false, seq: 1 });
      const after = await read(bob, id);
      expect(after.active_revision).to.equal(2);
      expect(after.definition).to.include({ revision: 2, title: 'Second' });
      expect(after.definition.policy.misfire).to.equal('skip');
      expect(after.definition.policy.retry.max_attempts).to.equal(4);
      expect(after.summary).to.include({ revision: 2, title: 'Second' });
    });

    it('answers the same command again as a duplicate with its seq, and another command under the id 409 identity_conflict', async () => {
      const id = await make(bob);
      const first = accepted(await patch(bob, id, { command_id: 'dup-1', expected_revision: 1, changes: { title: 'A' } }));
      // A retry of a decided revise skips the revision check (the automation is at 2 now).
      const again = accepted(await patch(bob, id, { command_id: 'dup-1', expected_revision: 1, changes: { title: 'A' } }));
      expect(again).to.deep.equal({ command_id: 'dup-1', accepted: true, duplicate: true, seq: first.seq });
      expect((await read(bob, id)).active_revision).to.equal(2);
      const conflict = refusal(await patch(bob, id, { command_id: 'dup-1', expected_revision: 1, changes: { title: 'B' } }), 409, 'identity_conflict');
      expect(conflict.command_id).to.equal('dup-1');
      refusal(await command(bob, id, 'automation.pause', { command_id: 'dup-1' }), 409, 'identity_conflict');
    });

    it('refuses a stale expected_revision with 409 revision_conflict naming both revisions', async () => {
      const id = await make(bob);
      accepted(await patch(bob, id, { command_id: 'stale-1', expected_revision: 1, changes: { title: 'A' } }));
      const detail = refusal(await patch(bob, id, { command_id: 'stale-2', expected_revision: 1, changes: { title: 'B' } }), 409, 'revision_conflict');
      expect(detail.message).to.equal('Automation is at revision 2, not 1.');
      expect(detail.command_id).to.equal('stale-2');
      // Nothing was decided under the refused id: sent right, it applies.
      accepted(await patch(bob, id, { command_id: 'stale-2', expected_revision: 2, changes: { title: 'B' } }));
      // Without expected_revision a revise applies to whatever revision is current.
      accepted(await patch(bob, id, { command_id: 'stale-3', changes: { title: 'C' } }));
      expect((await read(bob, id)).definition).to.include({ revision: 4, title: 'C' });
    });

    it('checks changes: a non-empty object of revisable fields, each validated as at creation', async () => {
      const id = await make(bob);
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: {} }), 422, 'invalid_request', 'changes');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { notify: { channels: ['console'] } } }), 422, 'invalid_request', 'changes.notify');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { title: 'x'.repeat(121) } }), 422, 'invalid_definition', 'changes.title');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { target: { bundle_ref: 'nope', flow_id: 'echo' } } }), 422, 'invalid_definition', 'changes.target.bundle_ref');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { policy: { misfire: 'never' } } }), 422, 'invalid_definition', 'changes.policy.misfire');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), expected_revision: 'one', changes: { title: 'x' } }), 422, 'invalid_request', 'expected_revision');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { title: 'x' }, extra: true }), 422, 'invalid_request', 'extra');
      refusal(await patch(bob, id, { command_id: '', changes: { title: 'x' } }), 422, 'invalid_request', 'command_id');
      expect((await read(bob, id)).active_revision).to.equal(1);
    });

    it('gives a changed trigger a new binding; a target change is resolved and protected as at creation', async () => {
      const id = await make(bob);
      const before = await read(bob, id);
      accepted(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { trigger: { source_id: 'schedule', source_version: 1, config: { every: '1h' } }, target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: 'new', _meta: { forged: true } } } } }));
      const after = await read(bob, id);
      expect(after.summary.trigger.binding_id).to.not.equal(before.summary.trigger.binding_id);
      expect(after.summary.trigger.source_id).to.equal('schedule');
      expect(after.summary.next_fire_at).to.be.a('string');
      expect(after.definition.target.input_data).to.deep.equal({ prompt: 'new', workspace: { configured: false }, use_context: true });
    });
  });

  describe('POST /automations/{id}/commands', () => {
    it('checks the type and the command_id first (422), before looking the automation up (404)', async () => {
      const unknown = crypto.randomUUID();
      refusal(await command(bob, unknown, 'automation.explode'), 422, 'invalid_request', 'type');
      refusal(await command(bob, unknown, 'pause'), 422, 'invalid_request', 'type');
      refusal(await command(bob, unknown, 'automation.pause', { command_id: '' }), 422, 'invalid_request', 'command_id');
      refusal(await command(bob, unknown, 'automation.pause', { command_id: 'c'.repeat(201) }), 422, 'invalid_request', 'command_id');
      refusal(await command(bob, unknown, 'automation.pause'), 404, 'automation_not_found');
      const id = await make(bob);
      refusal(await command(bob, id, 'automation.pause', { payload: { colour: 'red' } }), 422, 'invalid_request', 'payload.colour');
      refusal(await command(bob, id, 'automation.pause', { payload: 'now' }), 422, 'invalid_request', 'payload');
    });

    it('answers another account\'s automation 404 automation_not_found and leaves it as it was', async () => {
      const id = await make(bob);
      refusal(await command(carol, id, 'automation.pause'), 404, 'automation_not_found');
      refusal(await patch(carol, id, { command_id: crypto.randomUUID(), changes: { title: 'mine now' } }), 404, 'automation_not_found');
      const after = await read(bob, id);
      expect(after.summary.status).to.equal('active');
      expect(after.active_revision).to.equal(1);
    });

    it('pauses and resumes: pause when paused and resume when not paused are 409 invalid_state', async () => {
      const id = await make(bob);
      refusal(await command(bob, id, 'automation.resume'), 409, 'invalid_state');
      const paused = accepted(await command(bob, id, 'automation.pause', { payload: { reason: 'holiday' } }));
      expect(paused).to.include({ duplicate: false, seq: 1 });
      expect((await read(bob, id)).summary.status).to.equal('paused');
      refusal(await command(bob, id, 'automation.pause'), 409, 'invalid_state');
      expect(accepted(await command(bob, id, 'automation.resume')).seq).to.equal(2);
      expect((await read(bob, id)).summary.status).to.equal('active');
    });

    it('refuses a stale payload.expected_revision on any command with 409 revision_conflict', async () => {
      const id = await make(bob);
      refusal(await command(bob, id, 'automation.pause', { payload: { expected_revision: 7 } }), 409, 'revision_conflict');
      accepted(await command(bob, id, 'automation.pause', { payload: { expected_revision: 1 } }));
    });

    it('archives and unarchives: only unarchive (or archive again) applies to an archived automation; unarchive returns it paused', async () => {
      const id = await make(bob);
      const detail = refusal(await command(bob, id, 'automation.unarchive'), 409, 'invalid_state');
      expect(detail.message).to.equal('Automation is not archived.');
      accepted(await command(bob, id, 'automation.archive'));
      const archived = await read(bob, id);
      expect(archived.summary.status).to.equal('archived');
      expect(archived.summary.capabilities).to.deep.equal(['unarchive', 'discuss']);
      expect(archived.definition.archived_at).to.be.a('string');
      for (const type of ['automation.pause', 'automation.resume', 'automation.run_now', 'automation.stop_current']) refusal(await command(bob, id, type), 409, 'invalid_state');
      refusal(await patch(bob, id, { command_id: crypto.randomUUID(), changes: { title: 'x' } }), 409, 'invalid_state');
      // Archiving twice is an applied no-op.
      accepted(await command(bob, id, 'automation.archive'));
      accepted(await command(bob, id, 'automation.unarchive'));
      const back = await read(bob, id);
      expect(back.summary.status).to.equal('paused');
      expect(back.definition.archived_at).to.equal(null);
      expect(back.summary.capabilities).to.include('resume');
    });

    it('decides a command once when it arrives twice at once, and applies one of two racing pauses', async () => {
      const id = await make(bob);
      const [a, b] = await Promise.all([command(bob, id, 'automation.pause', { command_id: 'race-1' }), command(bob, id, 'automation.pause', { command_id: 'race-1' })]);
      const receipts = [accepted(a), accepted(b)];
      expect(receipts.map((r) => r.duplicate).sort()).to.deep.equal([false, true]);
      expect(receipts[0]!.seq).to.equal(receipts[1]!.seq);
      accepted(await command(bob, id, 'automation.resume'));
      const [c, d] = await Promise.all([command(bob, id, 'automation.pause'), command(bob, id, 'automation.pause')]);
      expect([c.statusCode, d.statusCode].sort(), c.body + d.body).to.deep.equal([200, 409]);
    });

    it('stop_current with nothing running is 409 invalid_state', async () => {
      const id = await make(bob);
      refusal(await command(bob, id, 'automation.stop_current'), 409, 'invalid_state');
    });

    it('run_now starts an occurrence (also while paused, which stays paused); a second one while it runs is 409 automation_busy; stop_current stops it', async () => {
      const id = await make(bob, { target: { bundle_ref: 'ask', flow_id: 'ask', input_data: {} } });
      accepted(await command(bob, id, 'automation.pause'));
      const runNow = accepted(await command(bob, id, 'automation.run_now', { command_id: 'run-now-1' }));
      const running = await until(() => read(bob, id), { what: 'the manual occurrence to run', ok: (r) => r.summary.current_occurrence?.status === 'running', deadline: 60_000 });
      expect(running.summary.status).to.equal('paused');
      refusal(await command(bob, id, 'automation.run_now'), 409, 'automation_busy');
      // The same run_now again is a duplicate of the decided command, not a second occurrence.
      expect(accepted(await command(bob, id, 'automation.run_now', { command_id: 'run-now-1' }))).to.include({ duplicate: true, seq: runNow.seq });
      accepted(await command(bob, id, 'automation.stop_current'));
      const stopped = await until(() => read(bob, id), { what: 'the occurrence to stop', ok: (r) => r.summary.current_occurrence === null, deadline: 60_000 });
      expect(stopped.summary.status).to.equal('paused');
    });
  });

  describe('POST /commands aimed at automations', () => {
    const post = (token: string, body: Record<string, unknown>) => k.inject({ method: 'POST', url: '/api/gateway/commands', token, payload: body });

    it('takes the automation.* types with run_id = an automation id, as the commands route does', async () => {
      const id = await make(bob);
      const receipt = accepted(await post(bob, { command_id: 'via-commands-1', run_id: id, type: 'automation.pause', payload: {} }));
      expect(receipt).to.deep.equal({ command_id: 'via-commands-1', accepted: true, duplicate: false, seq: 1 });
      expect((await read(bob, id)).summary.status).to.equal('paused');
      // The same id through the automation route is the same command.
      expect(accepted(await command(bob, id, 'automation.pause', { command_id: 'via-commands-1', payload: {} })).duplicate).to.equal(true);
      refusal(await post(bob, { command_id: crypto.randomUUID(), run_id: id, type: 'automation.pause' }), 409, 'invalid_state');
    });

    it('answers automation.* at an id that is none of the caller\'s automations 404 automation_not_found', async () => {
      const id = await make(bob);
      refusal(await post(bob, { command_id: crypto.randomUUID(), run_id: crypto.randomUUID(), type: 'automation.pause' }), 404, 'automation_not_found');
      refusal(await post(bob, { command_id: crypto.randomUUID(), run_id: 'not-an-automation', type: 'automation.pause' }), 404, 'automation_not_found');
      refusal(await post(carol, { command_id: crypto.randomUUID(), run_id: id, type: 'automation.pause' }), 404, 'automation_not_found');
      expect((await read(bob, id)).summary.status).to.equal('active');
    });

    it('answers run commands aimed at an automation id 409 invalid_state', async () => {
      const id = await make(bob);
      for (const type of ['pause', 'resume', 'cancel', 'conclude', 'emit_event', 'update_schedule', 'compact_memory', 'inject_guidance']) {
        refusal(await post(bob, { command_id: crypto.randomUUID(), run_id: id, type, payload: {} }), 409, 'invalid_state');
      }
      // Another account's automation id is no run of carol's: the runs answer as for any unknown run.
      expect((await post(carol, { command_id: crypto.randomUUID(), run_id: id, type: 'pause', payload: {} })).statusCode).to.equal(404);
      expect((await read(bob, id)).summary.status).to.equal('active');
    });
  });
});
