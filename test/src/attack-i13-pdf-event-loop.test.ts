/**
 * Attack (issue 13): `write_pdf` rendered on the server's event loop. Even linear, a megabyte of
 * Markdown (just under `workspace.maxWriteBytes`) is seconds of layout, and a flow can loop the node:
 * every request of every account waited for each render. Now the `pdf-render` worker lays it out.
 * Measured in this process (the kernel runs in it): the event loop's longest stall during the run
 * stays far below the seconds the render takes (about 5 s on the shared test machine).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { edges, node } from './helpers/flow-builder.js';
import { until, type RunRecord } from './helpers/gateway-runs.js';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';

describe('attack i13: write_pdf of a megabyte of Markdown', function () {
  this.timeout(600_000);
  let k: TestKernel;
  let eve = '';

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    eve = await createAccount(k, 'eve');
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: ['file_path', 'content'] }),
        node({ id: 'write', type: 'write_pdf', inputs: ['file_path', 'content'], outputs: ['bytes'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['bytes'] }),
      ],
      edges: edges('start -> write', 'write -> end', 'write.bytes -> end.bytes', 'start.file_path -> write.file_path', 'start.content -> write.content'),
    };
    await uploadBundleAs(k, eve, 'pdf', flow);
  });
  after(() => k?.stop());

  it('renders off the event loop: no stall of a second while the run renders', async () => {
    const content = '**bold** and `code` '.repeat(50_000);
    // From before the start: the runner may take the run up before the start's answer arrives here.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: eve, payload: { bundle_id: 'pdf', input_data: { file_path: 'big.pdf', content } } });
    expect(started.statusCode, started.body).to.equal(200);
    const runId = started.json<{ run_id: string }>().run_id;
    const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token: eve })).json<RunRecord>(), { what: 'the PDF run to end', ok: (r) => r.status !== 'running' && r.status !== 'waiting', deadline: 300_000 });
    delay.disable();
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.output!.bytes).to.be.a('number').above(100_000);
    // Generous: a loaded machine stalls a little anyway; the render on the loop stalled it for seconds.
    expect(delay.max / 1e6, 'longest event-loop stall (ms)').to.be.below(1_500);
  });
});
