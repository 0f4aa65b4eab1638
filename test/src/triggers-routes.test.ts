/**
 * `GET /api/gateway/trigger-sources` and `POST /api/gateway/automations/schedule-preview` through
 * HTTP on the gateway stack with the automations plugin (reference §3.4, §3.5): any signed-in
 * principal, refusals as `{detail: {reason_code, message, field}}`, nothing computed by the client.
 */
import { expect } from 'chai';
import { core } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationsPlugin } from '@keel/plugin-automations';
import { createAccount } from './helpers/accounts.js';

/** Thursday 8 October 2026, 12:00 UTC (14:00 in Paris). */
const NOW = Date.parse('2026-10-08T12:00:00Z');
const clock = { now: () => new Date(NOW), nowMs: () => NOW };

type Detail = { reason_code: string; message: string; field?: string };

describe('triggers: the trigger-sources and schedule-preview routes', function () {
  this.timeout(120_000);
  let k: TestKernel;
  let bob: string;
  const savedTz = process.env.TZ;

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, automationsPlugin], overrides: [[core.clock, clock]] });
    bob = await createAccount(k, 'bob');
  });
  after(async () => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
    await k?.stop();
  });

  const preview = (trigger: unknown, token: string | null = bob) => k.inject({ method: 'POST', url: '/api/gateway/automations/schedule-preview', token: token ?? undefined, payload: { trigger } });

  it('GET /trigger-sources lists the sources to any signed-in account, with their schemas (email.received@1 unavailable, with its reason)', async () => {
    const res = await k.inject({ url: '/api/gateway/trigger-sources', token: bob });
    expect(res.statusCode, res.body).to.equal(200);
    const items = res.json<{ items: Array<{ id: string; version: number; label: string; capabilities: { kind: string }; config_schema: object; event_schema: object; available: boolean }> }>().items;
    expect(items.map((s) => [`${s.id}@${s.version}`, s.capabilities.kind, s.available])).to.deep.equal([
      ['schedule@1', 'time', true], ['schedule@2', 'time', true], ['manual@1', 'manual', true], ['email.received@1', 'event', false], ['event@1', 'event', true],
    ]);
    for (const item of items) {
      expect(item.label).to.be.a('string').with.length.above(0);
      expect(item.config_schema).to.have.property('type', 'object');
      expect(item.event_schema).to.have.property('type', 'object');
      if (item.available) expect(item).to.not.have.property('unavailable_reason');
      else expect((item as { unavailable_reason?: string }).unavailable_reason).to.be.a('string').with.length.above(0);
    }
  });

  it('both routes are described in /openapi.json with their body and response schemas', async () => {
    const doc = (await k.inject({ url: '/openapi.json' })).json<{ paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>> }>();
    expect(doc.paths['/api/gateway/trigger-sources']?.get?.responses).to.have.property('200');
    const post = doc.paths['/api/gateway/automations/schedule-preview']?.post;
    expect(post?.requestBody).to.be.an('object');
    expect(post?.responses).to.include.keys('200', '422');
  });

  it('both routes refuse a caller without a token or with a made-up one (401)', async () => {
    expect((await k.inject({ url: '/api/gateway/trigger-sources' })).statusCode).to.equal(401);
    expect((await k.inject({ url: '/api/gateway/trigger-sources', token: 'not-a-token' })).statusCode).to.equal(401);
    expect((await preview({ source_id: 'manual', source_version: 1 }, null)).statusCode).to.equal(401);
    expect((await preview({ source_id: 'manual', source_version: 1 }, 'not-a-token')).statusCode).to.equal(401);
  });

  it('previews a daily Paris schedule: normalised trigger, zone, texts, next run and first-run sentence', async () => {
    const res = await preview({ source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'Europe/Paris' } });
    expect(res.statusCode, res.body).to.equal(200);
    expect(res.json()).to.deep.equal({
      trigger: { source_id: 'schedule', source_version: 2, config: { kind: 'daily', time_zone: 'Europe/Paris', at: '08:00', start_at: '2026-10-08T12:00:00.000Z', anchor: '2026-10-08T12:00:00.000Z' } },
      time_zone: 'Europe/Paris',
      schedule_rule_text: 'Every day at 08:00 (Europe/Paris)',
      schedule_text: 'Every day at 08:00 (Europe/Paris) · next Fri 9 Oct 08:00',
      next_run_at: '2026-10-09T06:00:00.000Z',
      next_run_local: '2026-10-09T08:00:00.000+02:00',
      first_run_sentence: 'Runs every day at 08:00 (Europe/Paris), first run Fri 9 Oct 08:00.',
    });
  });

  it('a schedule@2 trigger without a zone gets the owner zone (the host\'s TZ here)', async () => {
    process.env.TZ = 'America/New_York';
    const res = await preview({ source_id: 'schedule', source_version: 2, config: { kind: 'weekly', days: ['mon'], at: '09:30' } });
    expect(res.statusCode, res.body).to.equal(200);
    const body = res.json<{ trigger: { config: { time_zone: string } }; time_zone: string; next_run_local: string; schedule_rule_text: string }>();
    expect([body.trigger.config.time_zone, body.time_zone]).to.deep.equal(['America/New_York', 'America/New_York']);
    expect(body.schedule_rule_text).to.equal('Every Mon at 09:30 (America/New_York)');
    expect(body.next_run_local).to.equal('2026-10-12T09:30:00.000-04:00');
  });

  it('a schedule due at once says "first run now"; one with no run left says so; manual has no next run', async () => {
    const now = (await preview({ source_id: 'schedule', source_version: 1, config: { every: '1h' } })).json<{ next_run_at: string; first_run_sentence: string }>();
    expect(now).to.deep.include({ next_run_at: '2026-10-08T12:00:00.000Z', first_run_sentence: 'Runs every hour (UTC), first run now.' });
    const manual = (await preview({ source_id: 'manual', source_version: 1, config: {} })).json<Record<string, unknown>>();
    expect(manual).to.deep.include({ next_run_at: null, next_run_local: null, schedule_rule_text: 'Manual runs only', first_run_sentence: 'Runs manual runs only.' });
    const event = (await preview({ source_id: 'event', source_version: 1, config: { name: 'deploy' } })).json<Record<string, unknown>>();
    expect(event).to.deep.include({ next_run_at: null, schedule_rule_text: 'When the event "deploy" is emitted' });
    // until before the first calendar slot: the rule never runs.
    const none = (await preview({ source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'UTC', until: '2026-10-09T07:00:00Z' } })).json<Record<string, unknown>>();
    expect(none).to.deep.include({ next_run_at: null, first_run_sentence: 'Runs every day at 08:00 (UTC) · until Fri 9 Oct 07:00, no run left.' });
  });

  it('refusals are 422 {detail: {reason_code, message, field}} with the §3.10 reason codes', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ source_id: 'schedule', source_version: 2, config: { kind: 'daily', at: '08:00', time_zone: 'Mars/Olympus' } }, 'invalid_definition', 'trigger.config.time_zone'],
      [{ source_id: 'schedule', source_version: 1, config: { start_at: '2026-10-08T12:00:00Z', anchor: '2026-10-08T13:00:00Z' } }, 'unsupported_feature', 'trigger.config.anchor'],
      [{ source_id: 'email.received', source_version: 1, config: {} }, 'unsupported_feature', 'trigger.source_id'],
      [{ source_id: 'email.received', source_version: 2, config: {} }, 'unknown_trigger_source', 'trigger.source_id'],
      [{ source_id: 'schedule', source_version: 1, config: { every: '1w' } }, 'invalid_definition', 'trigger.config.every'],
      [{ source_id: 'schedule', source_version: 1, config: { start_at: '2026-10-08 12:00' } }, 'invalid_definition', 'trigger.config.start_at'],
    ];
    for (const [trigger, reasonCode, field] of cases) {
      const res = await preview(trigger);
      expect(res.statusCode, res.body).to.equal(422);
      const detail = res.json<{ detail: Detail }>().detail;
      expect(detail, JSON.stringify(trigger)).to.include({ reason_code: reasonCode, field });
      expect(detail.message).to.be.a('string').and.match(/\.$/);
    }
  });

  it('hostile bodies: a __proto__ config key, a huge source id and a deeply odd config are refused with short messages', async () => {
    // The kernel's JSON reader refuses a __proto__ key before any route sees it (never a 2xx).
    const proto = await k.inject({
      method: 'POST', url: '/api/gateway/automations/schedule-preview', token: bob,
      payload: '{"trigger":{"source_id":"manual","source_version":1,"config":{"__proto__":{"polluted":true}}}}', headers: { 'content-type': 'application/json' },
    });
    expect(proto.statusCode, proto.body).to.be.within(400, 422);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const ctor = await preview({ source_id: 'manual', source_version: 1, config: { constructor: { prototype: {} } } });
    expect(ctor.statusCode, ctor.body).to.equal(422);
    expect(ctor.json<{ detail: Detail }>().detail).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.constructor' });

    const long = await preview({ source_id: 'x'.repeat(100_000), source_version: 1 });
    expect(long.statusCode).to.equal(422);
    expect(long.json<{ detail: Detail }>().detail.message.length).to.be.below(400);

    const nested = await preview({ source_id: 'schedule', source_version: 2, config: { kind: 'weekly', at: '08:00', days: [['mon']] } });
    expect(nested.json<{ detail: Detail }>().detail).to.include({ reason_code: 'invalid_definition', field: 'trigger.config.days' });
  });
});
