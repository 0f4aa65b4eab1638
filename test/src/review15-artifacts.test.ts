/**
 * Spec review of issue 15: an occurrence row lists the artifacts its run produced (reference §3.8
 * `artifacts: [{artifact_id, name, mime_type, url}]`), read through the artifacts plugin's token.
 */
import { expect } from 'chai';
import { core } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { automationsPlugin } from '@keel/plugin-automations';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { automationsApi, TestClock } from './helpers/automations-engine.js';
import { toolCallsFlow } from './helpers/flow-builder.js';
import { until } from './helpers/gateway-runs.js';

describe('review 15: occurrence rows list their artifacts', function () {
  this.timeout(240_000);
  const clock = new TestClock();
  let k: TestKernel;
  let ann = '';
  let bob = '';
  let api: ReturnType<typeof automationsApi>;

  before(async () => {
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { scheduler: { pollMs: 20 } } }, artifactsPlugin],
      overrides: [[core.clock, clock]],
    });
    ann = await createAccount(k, 'ann');
    bob = await createAccount(k, 'bob');
    await uploadBundleAs(k, ann, 'tools', toolCallsFlow());
    api = automationsApi(() => k, ann);
  });
  after(async () => k?.stop());

  it('names each artifact the occurrence wrote, with its content type and the url of its content', async () => {
    const calls = [
      { call_id: 'w', name: 'write_file', arguments: { path: 'report.md', content: '# Daily report' } },
      { call_id: 'x', name: 'write_file', arguments: { path: 'data/numbers.txt', content: '1 2 3' } },
    ];
    const id = await api.create({ request_id: 'writes-files', title: 'Writes files', target: { bundle_ref: 'tools', flow_id: 'tools', input_data: { calls } }, trigger: { source_id: 'manual', source_version: 1, config: {} } });
    await api.command(id, 'automation.run_now');
    const rows = await api.untilOccurrences(id, 'the occurrence to complete', (r) => r[0]?.status === 'completed');
    const runId = rows[0]!.run_id!;
    // Produced files are recorded once the step is (listeners of the runs plugin).
    const listed = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}/artifacts`, token: ann })).json<{ items: Array<{ artifact_id: string; path: string }> }>().items, { what: 'the two files to be recorded', ok: (items) => items.length === 2 });
    const occurrence = (await api.call('GET', `/automations/${id}/occurrences`)).json<{ items: Array<{ artifacts: Array<{ artifact_id: string; name: string; mime_type: string; url: string }> }> }>().items[0]!;
    expect(occurrence.artifacts.map((a) => a.artifact_id).sort()).to.deep.equal(listed.map((a) => a.artifact_id).sort());
    const report = occurrence.artifacts.find((a) => a.name === 'report.md');
    expect(report, JSON.stringify(occurrence.artifacts)).to.not.equal(undefined);
    expect(report!.mime_type).to.equal('text/markdown');
    expect(report!.url).to.equal(`/api/gateway/runs/${runId}/artifacts/${report!.artifact_id}/content`);
    const content = await k.inject({ url: report!.url, token: ann });
    expect(content.statusCode).to.equal(200);
    expect(content.body).to.equal('# Daily report');
    // The url is the owner's: another account gets nothing from it.
    expect((await k.inject({ url: report!.url, token: bob })).statusCode).to.equal(404);
  });
});
