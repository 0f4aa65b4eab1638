/**
 * Attack (issue 15): memory per request. An occurrence row carries its prompt and its answer, a
 * revision its input data (each up to `limits.maxInputDataBytes`, 256 KiB), and a page held up to
 * 200 of them: one GET of ~100 MB, built in memory — a handful of concurrent reads by one account
 * exhausted the process. A page now ends early past `limits.maxPageBytes` (with a cursor).
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

const BIG = 'x'.repeat(200_000);
const MIB = 1024 * 1024;

describe('attack15: one page of occurrences or revisions is bounded in bytes', function () {
  this.timeout(300_000);
  const clock = new TestClock();
  let k: TestKernel;
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await automationsKernel(clock);
    const token = await createAccount(k, 'ann');
    await uploadBundleAs(k, token, 'echo', echoFlow);
    api = automationsApi(() => k, token);
  });
  after(async () => k?.stop());

  it('occurrences: a page of big rows ends early with a cursor; paging still lists every row once', async () => {
    const id = await api.create({ request_id: 'big', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: BIG } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const total = 16;
    for (let n = 1; n <= total; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `occurrence ${n}`, (rows) => rows[0]?.index === n && rows[0].status === 'completed');
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.call('GET', `/automations/${id}/occurrences?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body.slice(0, 300)).to.equal(200);
      // 16 rows of 400 KB were one 6.4 MB answer; the default budget is 4 MiB.
      expect(res.body.length, 'one page').to.be.below(4.5 * MIB);
      const page = res.json<{ items: Array<{ index: number }>; next_cursor: string | null }>();
      expect(page.items.length).to.be.greaterThan(0);
      seen.push(...page.items.map((row) => row.index));
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 50);
    expect(pages).to.be.greaterThan(1);
    expect(seen).to.deep.equal(Array.from({ length: total }, (_, i) => total - i));
  });

  it('revisions: a page of big definitions ends early with a cursor; paging still lists every revision once', async () => {
    const id = await api.create({ request_id: 'revs', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: BIG } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const total = 30;
    for (let n = 2; n <= total; n++) {
      const res = await api.call('PATCH', `/automations/${id}`, { command_id: `rev-${n}`, changes: { target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: `${BIG}${n}` } } } });
      expect(res.statusCode, res.body).to.equal(200);
    }
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.call('GET', `/automations/${id}/revisions?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body.slice(0, 300)).to.equal(200);
      // 30 revisions of 200 KB were one 6 MB answer.
      expect(res.body.length, 'one page').to.be.below(4.5 * MIB);
      const page = res.json<{ items: Array<{ revision: number }>; next_cursor: string | null }>();
      seen.push(...page.items.map((definition) => definition.revision));
      cursor = page.next_cursor;
      pages++;
    } while (cursor && pages < 50);
    expect(pages).to.be.greaterThan(1);
    expect(seen).to.deep.equal(Array.from({ length: total }, (_, i) => total - i));
  });
});
