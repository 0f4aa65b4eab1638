/**
 * Spec review of issue 15: legacy scheduled roots (`POST /runs/schedule`) are listed read-only by
 * `GET /automations` on its last page (reference gateway-surfaces §3.6, §8.3), counted in
 * `archived_automations` when their session is archived; per-automation routes answer 404.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';
import { until } from './helpers/gateway-runs.js';

interface Row {
  automation_id: string;
  legacy: boolean;
  status: string;
  revision: number | null;
  capabilities: string[];
  trigger: { binding_id: string; source_id: string; source_version: number; config: Record<string, unknown> };
  attention: Record<string, unknown>;
  occurrence_count: number;
  next_fire_at?: string;
  last_occurrence: { run_id: string; index: number; attempts: number; status: string; notify: unknown; excerpt: string } | null;
  schedule_rule_text: string;
  session_kind: string;
}
interface Listing { items: Row[]; next_cursor: string | null; archived_automations: number }

describe('review 15: legacy scheduled roots in GET /automations', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let bob = '';
  let api: ReturnType<typeof automationsApi>;
  let rootId = '';
  let automationId = '';
  let olderId = '';

  before(async () => {
    k = await automationsKernel(clock);
    ann = await createAccount(k, 'ann');
    bob = await createAccount(k, 'bob');
    await uploadBundleAs(k, ann, 'echo', echoFlow);
    api = automationsApi(() => k, ann);
    const scheduled = await k.inject({ method: 'POST', url: '/api/gateway/runs/schedule', token: ann, payload: { bundle_id: 'echo', flow_id: 'echo', input_data: { prompt: 'Legacy hello' }, interval: '1h', session_id: 'legacy-schedule' } });
    expect(scheduled.statusCode, scheduled.body).to.equal(200);
    rootId = scheduled.json<{ run_id: string }>().run_id;
    olderId = await api.create({ request_id: 'older', title: 'Older automation', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    clock.advance(1000);
    automationId = await api.create({ request_id: 'newer', title: 'Newer automation', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: {} }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
  });
  after(async () => k?.stop());

  const list = async (query = '', token = ann) => {
    const res = await k.inject({ url: `/api/gateway/automations${query}`, token });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<Listing>();
  };

  it('appends the root on the last page as a read-only legacy row shaped as the reference says', async () => {
    const listing = await until(() => list(), { what: 'the first launch to finish', ok: (l) => l.items.find((r) => r.legacy)?.last_occurrence?.status === 'completed' && l.items.find((r) => r.legacy)?.next_fire_at !== undefined });
    expect(listing.items.map((r) => r.automation_id)).to.deep.equal([automationId, olderId, rootId]);
    const row = listing.items[2]!;
    expect(row).to.deep.include({ legacy: true, revision: null, capabilities: ['legacy'], status: 'active', occurrence_count: 1, session_kind: 'automation' });
    expect(row.trigger).to.deep.include({ binding_id: rootId, source_id: 'schedule', source_version: 1 });
    expect(row.trigger.config).to.include({ every: '1h' });
    expect(row.schedule_rule_text).to.equal('Every hour (UTC)');
    expect(row.attention).to.deep.equal({ pending_waits: 0, unread: false, unseen_count: 0, cursor: 'att1:0', items: [], waits: [] });
    expect(row.last_occurrence).to.deep.include({ index: 1, attempts: 1, status: 'completed', notify: null, excerpt: 'Legacy hello' });
    expect(row.next_fire_at, 'the root waits until its next launch').to.be.a('string');
    const root = (await k.inject({ url: `/api/gateway/runs/${rootId}`, token: ann })).json<{ waiting: { until: string } | null }>();
    expect(row.next_fire_at).to.equal(root.waiting?.until);
  });

  it('comes only on the last page (next_cursor null), after every automation', async () => {
    const first = await list('?limit=1');
    expect(first.items.map((r) => r.automation_id)).to.deep.equal([automationId]);
    expect(first.next_cursor).to.be.a('string');
    const last = await list(`?limit=1&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(last.next_cursor).to.equal(null);
    expect(last.items.map((r) => r.automation_id)).to.deep.equal([olderId, rootId]);
  });

  it('follows the status filter, is nobody else\'s, and answers 404 automation_not_found on the per-automation routes', async () => {
    expect((await list('?status=paused')).items.map((r) => r.automation_id)).to.deep.equal([]);
    expect((await list('?status=active')).items.map((r) => r.automation_id)).to.include(rootId);
    expect((await list('', bob)).items).to.deep.equal([]);
    for (const path of ['', '/occurrences', '/attention', '/revisions']) {
      const res = await k.inject({ url: `/api/gateway/automations/${rootId}${path}`, token: ann });
      expect(res.statusCode, path).to.equal(404);
      expect(res.json<{ detail: { reason_code: string } }>().detail.reason_code, path).to.equal('automation_not_found');
    }
  });

  it('leaves an archived root out of the default listing and counts it in archived_automations', async () => {
    const before = await list();
    expect(before.archived_automations).to.equal(0);
    const archived = await k.inject({ method: 'POST', url: '/api/gateway/sessions/legacy-schedule/archive', token: ann });
    expect(archived.statusCode, archived.body).to.equal(200);
    const after = await list();
    expect(after.items.map((r) => r.automation_id)).to.deep.equal([automationId, olderId]);
    expect(after.archived_automations).to.equal(1);
    const only = await list('?archived_only=true');
    expect(only.items.map((r) => [r.automation_id, r.status])).to.deep.equal([[rootId, 'archived']]);
  });
});
