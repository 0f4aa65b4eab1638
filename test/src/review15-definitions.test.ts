/**
 * Spec review of issue 15: definitions as a client of the origin sends them (reference
 * gateway-surfaces §3.2): the mail policy fields at their defaults are taken (they grant nothing),
 * any other value is 422 unsupported_feature.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

const manual = { source_id: 'manual', source_version: 1, config: {} };
const target = { bundle_ref: 'echo', flow_id: 'echo', input_data: {} };

describe('review 15: definitions as origin clients send them', function () {
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

  it('takes a whole policy with the mail fields at their defaults (email_allowed_recipients ["self"], untrusted_input_tools [])', async () => {
    const policy = { serial: true, misfire: 'coalesce', failure: 'continue', retry: { max_attempts: 3, backoff: { initial: '30s', factor: 2, max: '10m' } }, tool_approval: 'auto', email_allowed_recipients: ['self'], untrusted_input_tools: [] };
    const res = await api.call('POST', '/automations', { request_id: 'whole-policy', target, trigger: manual, policy });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ automation_id: string }>().automation_id;
    const revise = await api.call('PATCH', `/automations/${id}`, { command_id: 'whole-policy-revise', expected_revision: 1, changes: { policy } });
    expect(revise.statusCode, revise.body).to.equal(200);
  });

  it('refuses any other mail value with 422 unsupported_feature naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ email_allowed_recipients: ['someone@example.com'] }, 'policy.email_allowed_recipients'],
      [{ email_allowed_recipients: 'self' }, 'policy.email_allowed_recipients'],
      [{ untrusted_input_tools: ['fetch_url'] }, 'policy.untrusted_input_tools'],
    ];
    for (const [policy, field] of cases) {
      const res = await api.call('POST', '/automations', { request_id: `mail-${field}-${JSON.stringify(policy).length}`, target, trigger: manual, policy });
      expect(res.statusCode, JSON.stringify(policy)).to.equal(422);
      expect(res.json<{ detail: Record<string, unknown> }>().detail).to.include({ reason_code: 'unsupported_feature', field });
    }
  });
});
