/**
 * Attack (issue 15): memory per request through the summary. A summary carries up to 20 unseen
 * attention items, and a notify item's body is the occurrence's whole answer; GET /automations puts a
 * summary per automation on a page (up to 200): 20 answers of 200 KB were 4 MB per summary, ~800 MB
 * per page. The summary now carries a short excerpt of each body (the whole text: GET …/attention).
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, automationsKernel, echoFlow, TestClock } from './helpers/automations-engine.js';

const BIG = 'y'.repeat(200_000);

describe("attack15: a summary's size does not grow with the answers", function () {
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

  it('unseen notify items in the summary carry an excerpt of their body; GET …/attention keeps the whole body', async () => {
    const id = await api.create({ request_id: 'notifier', target: { bundle_ref: 'echo', flow_id: 'echo', input_data: { prompt: BIG, notify: true } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    const total = 8;
    for (let n = 1; n <= total; n++) {
      await api.command(id, 'automation.run_now');
      await api.untilOccurrences(id, `occurrence ${n}`, (rows) => rows[0]?.index === n && rows[0].status === 'completed');
    }
    const one = await api.call('GET', `/automations/${id}`);
    expect(one.statusCode).to.equal(200);
    const attention = one.json<{ summary: { attention: { unseen_count: number; items: Array<{ body?: string }> } } }>().summary.attention;
    expect(attention.unseen_count).to.equal(total);
    expect(attention.items).to.have.length(total);
    for (const item of attention.items) expect(item.body!.length).to.be.at.most(1000);
    // 8 answers of 200 KB were 1.6 MB in one summary.
    expect(one.body.length).to.be.below(300_000);
    const listed = await api.call('GET', '/automations');
    expect(listed.body.length).to.be.below(300_000);
    const full = await api.attention(id);
    expect(full[0]!.body!.length).to.be.greaterThan(BIG.length);
  });
});
