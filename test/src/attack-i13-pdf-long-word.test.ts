/**
 * Attack (issue 13): `write_pdf` renders on the server's event loop, and pdfkit splits a word wider
 * than the line by measuring what is left of it after every line — quadratic in the word's length.
 * One word of 300 000 characters (well under `workspace.maxWriteBytes`) blocked every request of
 * every account for about two minutes on this machine, a 1 MiB one for far longer. The title, not
 * counted in the limit, did the same. Now both render in linear time and the title counts.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';

describe('attack i13: write_pdf with one very long word', function () {
  this.timeout(600_000);
  let k: TestKernel;
  let eve = '';

  const run = async (input: Record<string, unknown>) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: eve, payload: { bundle_id: 'pdf', input_data: input } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    // Generous for a loaded machine; the quadratic rendering took minutes with the event loop blocked.
    return until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: eve })).json<RunRecord>(), { what: `run ${runId} to end`, ok: (r) => r.status !== 'running' && r.status !== 'waiting', deadline: 60_000 });
  };

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    eve = await createAccount(k, 'eve');
    const inputs = ['file_path', 'content', 'title'];
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: inputs }),
        node({ id: 'write', type: 'write_pdf', inputs, outputs: ['bytes', 'file_path'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['bytes'] }),
      ],
      edges: edges('start -> write', 'write -> end', 'write.bytes -> end.bytes', ...inputs.map((p) => `start.${p} -> write.${p}`)),
    };
    await uploadBundleAs(k, eve, 'pdf', flow);
  });
  after(() => k?.stop());

  it('renders a 300 000-character word as body text and as a code block without blocking the server', async () => {
    for (const content of ['w'.repeat(300_000), `\`\`\`\n${'c'.repeat(300_000)}\n\`\`\``]) {
      const ended = await run({ file_path: 'long.pdf', content });
      expect(ended.status, String(ended.error)).to.equal('completed');
      expect(ended.output!.bytes).to.be.a('number').above(1000);
    }
  });

  it('renders a long title in linear time too, and counts the title in workspace.maxWriteBytes', async () => {
    const titled = await run({ file_path: 'title.pdf', content: 'body', title: 't'.repeat(300_000) });
    expect(titled.status, String(titled.error)).to.equal('completed');
    expect(titled.output!.bytes).to.be.a('number').above(1000);
    const over = await run({ file_path: 'over.pdf', content: 'body', title: 't'.repeat(1024 * 1024) });
    expect(over.status).to.equal('completed');
    expect(over.output).to.deep.include({ success: false, node: 'write', error: 'write_pdf content is over the 1048576 bytes a file node writes (gateway-runs setting workspace.maxWriteBytes).' });
  });
});
