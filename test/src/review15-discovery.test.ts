/**
 * Spec review of issue 15: the capabilities advertise the command types from the same lists the
 * commands routes check (reference gateway-surfaces §3.7: `automations.command_types` and
 * `runs.commands.types`), and each advertised type is taken by `POST /commands`.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

const RUN_TYPES = ['pause', 'resume', 'cancel', 'conclude', 'emit_event', 'update_schedule', 'compact_memory', 'inject_guidance'];
const AUTOMATION_TYPES = ['automation.pause', 'automation.resume', 'automation.run_now', 'automation.stop_current', 'automation.archive', 'automation.unarchive', 'automation.revise'];

interface Capabilities { runs?: { commands?: { types?: string[] } }; automations?: { command_types?: string[] }; streaming?: unknown }

describe('review 15: discovery advertises the command types', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  it('lists automations.command_types and runs.commands.types (run types and automation.* types) beside the streaming block', async () => {
    const res = await k.inject({ url: '/api/gateway/discovery/capabilities', token: ann });
    expect(res.statusCode).to.equal(200);
    const caps = res.json<Capabilities>();
    expect(caps.streaming, 'the inference plugin\'s own blocks stay').to.be.an('object');
    expect(caps.automations?.command_types).to.deep.equal(AUTOMATION_TYPES);
    expect(caps.runs?.commands?.types).to.deep.equal([...RUN_TYPES, ...AUTOMATION_TYPES]);
  });

  it('takes every advertised automation type through POST /commands (none is refused as an unknown type)', async () => {
    const id = await api.create({ request_id: 'advertised', title: 'Advertised', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const caps = (await k.inject({ url: '/api/gateway/discovery/capabilities', token: ann })).json<Capabilities>();
    for (const type of caps.automations!.command_types!) {
      const payload = type === 'automation.revise' ? { changes: { title: 'Renamed' } } : {};
      const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: `adv-${type}`, run_id: id, type, payload } });
      // Accepted, or refused by a state rule (409) — never a 400/422 for the type itself.
      expect(res.statusCode, `${type}: ${res.body}`).to.be.oneOf([200, 409]);
    }
  });
});

describe('review 15: POST /commands keeps the automation door checks', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  it('refuses an automation.* command without a command_id (or a blank one) 422 field command_id, as POST /automations/{id}/commands does', async () => {
    const id = await api.create({ request_id: 'needs-id', title: 'Needs an id', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    for (const body of [{ run_id: id, type: 'automation.pause', payload: {} }, { command_id: '  ', run_id: id, type: 'automation.pause', payload: {} }]) {
      const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: body });
      expect(res.statusCode, res.body).to.equal(422);
      expect(res.json<{ detail: Record<string, unknown> }>().detail).to.include({ reason_code: 'invalid_request', field: 'command_id' });
    }
    expect((await api.summary(id)).status, 'nothing applied').to.equal('active');
    // With an id it is taken.
    expect((await k.inject({ method: 'POST', url: '/api/gateway/commands', token: ann, payload: { command_id: 'given', run_id: id, type: 'automation.pause', payload: {} } })).statusCode).to.equal(200);
  });
});
