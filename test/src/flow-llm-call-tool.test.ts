/**
 * `call_tool` (reference runtime-nodes §9.1, §11 "call_tool"): one tool call performed as a
 * `tool_calls` effect in the run's workspace, its first result on `result` / `success`.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';

/** start → call_tool (tool_call from the start's `call`; these pin defaults) → end with result and success. */
function callToolFlow(pins: Record<string, unknown> = {}) {
  return {
    id: 'call',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['call'] }),
      node({ id: 'tool', type: 'call_tool', inputs: ['tool_call', 'allowed_tools'], outputs: ['result', 'success'], data: { pinDefaults: pins } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['result', 'success'] }),
    ],
    edges: edges('start -> tool', 'tool -> end', 'start.call -> tool.tool_call', 'tool.result -> end.result', 'tool.success -> end.success'),
  };
}

describe('call_tool: one tool call as a tool_calls effect', function () {
  this.timeout(120_000);
  const { gw } = llmGatewaySuite({ models: ['m'] });

  it('the ledger records effect type tool_calls with the one call; a succeeding call puts its output on result, success true', async () => {
    const call = { name: 'write_file', arguments: { path: 'note.txt', content: 'hello' }, call_id: 'c1' };
    const { run, ledger } = await gw.runFlow(callToolFlow(), { call });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.success).to.equal(true);
    expect(run.output!.result).to.be.a('string').and.not.equal('');
    const started = startedOf(ledger, 'tool_calls');
    expect(started).to.have.length(1);
    expect(started[0]!.node_id).to.equal('tool');
    expect(started[0]!.effect!.payload).to.deep.equal({ tool_calls: [call] });
  });

  it('a call given as a JSON string works the same; a failing call gives success false and its error as result', async () => {
    const { run, ledger } = await gw.runFlow(callToolFlow(), { call: JSON.stringify({ name: 'read_file', arguments: { path: 'missing.txt' } }) });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.success).to.equal(false);
    expect(run.output!.result).to.be.a('string').and.match(/missing\.txt|not found|No such|does not exist/i);
    expect((startedOf(ledger, 'tool_calls')[0]!.effect!.payload.tool_calls as unknown[])).to.have.length(1);
  });

  it('an allowed_tools pin that is present but empty allows no tool: the call is refused, success false', async () => {
    const { run, ledger } = await gw.runFlow(callToolFlow({ allowed_tools: [] }), { call: { name: 'list_files', arguments: {} } });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(startedOf(ledger, 'tool_calls')[0]!.effect!.payload.allowed_tools).to.deep.equal([]);
    expect(run.output!.success).to.equal(false);
  });

  it('an unreadable tool_call gives an empty call list and "Missing tool result"', async () => {
    const { run, ledger } = await gw.runFlow(callToolFlow(), { call: 'not json' });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(startedOf(ledger, 'tool_calls')[0]!.effect!.payload.tool_calls).to.deep.equal([]);
    expect(run.output).to.include({ result: 'Missing tool result', success: false });
  });
});

describe('call_tool outputs for results Keel never produces over HTTP (approval and passthrough modes)', () => {
  it('a mode other than executed: success false and "Tool execution not completed (mode=<mode>)"; a failure without error text: "Tool execution failed"', async () => {
    const { callToolOutputs } = await import('../../plugins/gateway-runs/dist/flow/call-tool-node.js');
    expect(callToolOutputs({ mode: 'approval', results: [] })).to.include({ result: 'Tool execution not completed (mode=approval)', success: false });
    expect(callToolOutputs({ mode: 'executed', results: [{ success: false }] })).to.include({ result: 'Tool execution failed', success: false });
    expect(callToolOutputs({ mode: 'executed', results: [{ success: true, output: 'ok' }] })).to.include({ result: 'ok', success: true });
  });
});
