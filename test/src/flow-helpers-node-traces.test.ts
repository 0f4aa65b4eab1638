/**
 * Node traces from a real run's ledger (runtime/node-traces.ts), in the shape `agent_trace_report`
 * renders (reference runtime-nodes §3.9): a tool_calls run through the HTTP API, its ledger read
 * back, turned into `node_traces` and rendered.
 */
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin, type StepRecord } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { nodeTracesFromLedger } from '../../plugins/gateway-runs/dist/runtime/node-traces.js';
import { renderAgentTraceReport } from '../../plugins/gateway-runs/dist/flow/helpers/agent-trace-report.js';
import { toolCallsFlow } from './helpers/flow-builder.js';
import { gatewayRuns, until } from './helpers/gateway-runs.js';

describe('node traces from a run ledger (agent_trace_report input)', function () {
  this.timeout(180_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin] });
    await api.uploadBundle('tools', toolCallsFlow());
  });
  after(() => k?.stop());

  it('one step per final record, grouped by node, that agent_trace_report renders as the origin does', async () => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'tools', input_data: { calls: [{ call_id: 'c1', name: 'list_files', arguments: {} }, { call_id: 'c2', name: 'read_file', arguments: { path: 'missing.txt' } }] } } });
    const runId = res.json<{ run_id: string }>().run_id;
    await until(() => api.getRun(runId), { what: `run ${runId} to complete`, ok: (r) => r.status === 'completed' });
    const ledger = await api.ledger(runId);
    const traces = nodeTracesFromLedger(ledger as unknown as StepRecord[]);
    expect(Object.keys(traces)).to.include('run_tools');
    const [step] = traces.run_tools!.steps;
    expect(step).to.include({ node_id: 'run_tools', status: 'completed', reused_prior_result: false });
    expect(step!.effect.type).to.equal('tool_calls');
    expect(step!.duration_ms).to.be.a('number');
    const report = renderAgentTraceReport({ sub_run_id: runId, node_traces: { run_tools: traces.run_tools } });
    expect(report).to.match(new RegExp(`^# Agent Trace Report\\n- \\*\\*sub_run_id\\*\\*: \`${runId}\`\\n\\n## Timeline\\n\\n### 1\\. \`run_tools\` — \`tool_calls\` \\(completed\\)\\n- \\*\\*duration_ms\\*\\*: \\d+\\.000\\n\\n#### Tool: \`list_files\` \\(call_id=c1\\)\\n`));
    expect(report).to.include('#### Tool: `read_file` (call_id=c2)\n\n**Arguments**\n```json\n{\n  "path": "missing.txt"\n}\n```\n\n**Result**\n- **success**: false\n- **error**: ');
  });
});
