/**
 * Spec review of issue 15: the owner zone is the account preference `time_zone`, else the
 * gateway host's (reference gateway-surfaces §3.5): a schedule@2 trigger without a zone gets it on
 * create and in the preview, and the summary words times in it.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { triggers } from '@keel/plugin-automations';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

describe('review 15: the owner zone follows the account preference time_zone', function () {
  this.timeout(180_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let bob = '';
  let api: ReturnType<typeof automationsApi>;
  let bobApi: ReturnType<typeof automationsApi>;
  // A zone that is surely not the host's, so the preference is what decides.
  const zone = triggers.hostZone() === 'Pacific/Auckland' ? 'Europe/Paris' : 'Pacific/Auckland';

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    bob = await createAccount(k, 'bob');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
    bobApi = automationsApi(() => k, bob);
    const put = await k.inject({ method: 'PUT', url: '/api/gateway/accounts/me/preferences', token: ann, payload: { preferences: { time_zone: zone } } });
    expect(put.statusCode, put.body).to.equal(200);
    expect((await k.inject({ method: 'PUT', url: '/api/gateway/accounts/me/preferences', token: bob, payload: { preferences: { time_zone: 'Mars/Olympus_Mons' } } })).statusCode).to.equal(200);
  });
  after(async () => k?.stop());

  const daily = { source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00' } };

  it('fills a schedule@2 trigger without time_zone with the preference, in the preview and on create', async () => {
    const preview = await api.call('POST', '/automations/schedule-preview', { trigger: daily });
    expect(preview.statusCode, preview.body).to.equal(200);
    expect(preview.json<{ time_zone: string; trigger: { config: { time_zone: string } }; schedule_rule_text: string }>()).to.deep.include({ time_zone: zone, schedule_rule_text: `Every day at 08:00 (${zone})` });
    const id = await api.create({ request_id: 'daily-pref', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: daily });
    const read = (await api.call('GET', `/automations/${id}`)).json<{ definition: { trigger: { config: { time_zone: string } } }; summary: { time_zone: string } }>();
    expect(read.definition.trigger.config.time_zone).to.equal(zone);
    expect(read.summary.time_zone).to.equal(zone);
  });

  it('words a fixed UTC interval with the zone named after the time it shows (reference §3.5 example)', async () => {
    const id = await api.create({ request_id: 'every-pref', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'schedule', source_version: 1, config: { every: '24h', start_at: new Date(clock.nowMs() + 3_600_000).toISOString() } } });
    const summary = await api.summary(id);
    expect(summary.time_zone).to.equal(zone);
    expect(summary.schedule_text).to.match(new RegExp(`^Every 24 hours \\(UTC\\) · next .+ \\(${zone.replace('/', '\\/')}\\)$`));
    await api.command(id, 'automation.pause');
  });

  it('falls back to the host zone when the preference is not an IANA zone', async () => {
    const preview = await bobApi.call('POST', '/automations/schedule-preview', { trigger: daily });
    expect(preview.json<{ time_zone: string }>().time_zone).to.equal(triggers.hostZone());
  });
});
