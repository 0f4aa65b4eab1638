/**
 * S2 and the agent's part of S3 (reference runtime-nodes §5.2–5.3, §11 "S2"), and issue 13 item 6:
 * a structured agent answers through a format-only `llm_call` in the parent run after its child;
 * the child's workflow id is namespaced as the origin names it (formats page §1.4); the agent honours
 * include_context. Flows run through the HTTP API against a scripted endpoint.
 */
import { expect } from 'chai';
import { edges, node } from './helpers/flow-builder.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';

const SCHEMA = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };

/** start → agent (these pin defaults, agentConfig) → end with its outputs and the run's context messages. */
function agentFlow(pins: Record<string, unknown>, agentConfig: Record<string, unknown> = {}) {
  return {
    id: 'agent.flow',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'think', type: 'agent', inputs: ['prompt', ...Object.keys(pins)], outputs: ['response', 'data', 'success', 'meta', 'scratchpad'], data: { pinDefaults: pins, agentConfig } }),
      node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'data', 'success', 'meta', 'messages', 'scratchpad'] }),
    ],
    edges: edges('start -> think', 'think -> end', 'start.prompt -> think.prompt', 'think.response -> end.response', 'think.data -> end.data', 'think.success -> end.success', 'think.meta -> end.meta', 'ctx.messages -> end.messages', 'think.scratchpad -> end.scratchpad'),
  };
}

describe('agent node: structured answers, context, child workflow ids (S2, S3, item 6)', function () {
  this.timeout(120_000);
  const { endpoint, gw } = llmGatewaySuite({ models: ['structured', 'config-schema', 'plain', 'ctx', 'tools'] });

  it('resp_schema: the child runs unstructured, then the parent makes the format-only llm_call "Agent_<node>" after start_subworkflow and resume', async () => {
    endpoint.script('structured', [{ content: 'The sky is blue.' }, { content: '{"color": "blue"}' }]);
    const { run, runId, ledger } = await gw.runFlow(agentFlow({ resp_schema: SCHEMA, system: 'Be exact.' }), { prompt: 'What color is the sky?', _runtime: { provider: 'fake', model: 'structured' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.include({ response: '{"color":"blue"}', success: true });
    expect(run.output!.data).to.deep.equal({ color: 'blue' });
    expect((run.output!.meta as Record<string, unknown>).output_mode).to.equal('structured');

    const [reason, format] = endpoint.of('structured');
    expect(reason!.response_format, 'the child never sees the schema').to.equal(undefined);
    expect(format!.response_format?.json_schema?.schema).to.deep.equal(SCHEMA);
    expect(format!.messages).to.deep.equal([
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: 'Convert the Agent answer into a JSON object matching the required schema. Return JSON only.\n\nTask:\nWhat color is the sky?\n\nAnswer:\nThe sky is blue.' },
    ]);

    // The parent's ledger: start_subworkflow (started, waiting), the resume, then the llm_call pair.
    const effects = ledger.filter((i) => i.effect && ['start_subworkflow', 'llm_call'].includes(i.effect.type)).map((i) => `${i.effect!.type}:${i.status}`);
    expect(effects).to.deep.equal(['start_subworkflow:started', 'start_subworkflow:waiting', 'llm_call:started', 'llm_call:completed']);
    const waitingAt = ledger.findIndex((i) => i.effect?.type === 'start_subworkflow' && i.status === 'waiting');
    const llmAt = ledger.findIndex((i) => i.effect?.type === 'llm_call');
    const between = ledger.slice(waitingAt + 1, llmAt);
    expect(between.some((i) => /resume/.test(`${i.effect?.type ?? ''} ${i.status} ${i.node_id}`)), `a resume record between them: ${JSON.stringify(between)}`).to.equal(true);
    const call = startedOf(ledger, 'llm_call')[0]!;
    expect(call.node_id).to.equal('think');
    expect(call.effect!.payload).to.include({ response_schema_name: 'Agent_think', system_prompt: 'Be exact.', provider: 'fake', model: 'structured' });
    const kids = await gw.children(runId);
    expect(kids).to.have.length(1);
    expect(await gw.ledger(kids[0]!.run_id).then((l) => startedOf(l, 'llm_call').map((i) => i.effect!.payload.response_schema))).to.deep.equal([undefined]);
  });

  it('agentConfig.outputSchema {enabled, jsonSchema} asks for the same format pass; an answer that is not JSON gives data {}', async () => {
    endpoint.script('config-schema', [{ content: 'Green.' }, { content: 'not json at all' }]);
    const { run, ledger } = await gw.runFlow(agentFlow({}, { outputSchema: { enabled: true, jsonSchema: SCHEMA } }), { prompt: 'Grass?', _runtime: { provider: 'fake', model: 'config-schema' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(startedOf(ledger, 'llm_call')).to.have.length(1);
    expect(run.output!.data).to.deep.equal({});
    expect(run.output!.response).to.equal('{}');
  });

  it('item 6: the child run\'s workflow id is visual_react_agent_<bundle@version:flow>_<node> with every other char made _', async () => {
    endpoint.script('plain', [{ content: 'Done.' }]);
    const { run, runId, bundleId } = await gw.runFlow(agentFlow({}), { prompt: 'Do it.', _runtime: { provider: 'fake', model: 'plain' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.include({ response: 'Done.' });
    expect((run.output!.meta as Record<string, unknown>).output_mode).to.equal('unstructured');
    const kids = await gw.children(runId);
    expect(kids.map((k) => k.workflow_id)).to.deep.equal([`visual_react_agent_${bundleId}_1_0_0_agent_flow_think`]);
  });

  it('include_context: the child starts from the parent\'s context view; the task and answer join the parent context (agent_turn, message ids)', async () => {
    endpoint.script('ctx', [{ content: 'Paris.' }]);
    const history = [{ role: 'user', content: 'We talk about France.' }, { role: 'assistant', content: 'Yes.' }];
    const { run, runId } = await gw.runFlow(agentFlow({ include_context: 'true' }), { prompt: 'Capital?', context: { messages: history }, _runtime: { provider: 'fake', model: 'ctx' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    const sent = endpoint.of('ctx')[0]!.messages.filter((m) => m.role !== 'system');
    expect(sent).to.deep.equal([...history, { role: 'user', content: 'Capital?' }]);
    const subRunId = (await gw.children(runId))[0]!.run_id;
    const messages = run.output!.messages as Array<Record<string, unknown>>;
    expect(messages.slice(2)).to.deep.equal([
      { role: 'user', content: 'Capital?', metadata: { kind: 'agent_turn', message_id: `agent:${subRunId}:think:task`, node_id: 'think' } },
      { role: 'assistant', content: 'Paris.', metadata: { kind: 'agent_turn', message_id: `agent:${subRunId}:think:answer`, node_id: 'think' } },
    ]);
  });

  it('a tool the agent used: counted in meta, traced in the scratchpad, and its observation joins the parent context between task and answer', async () => {
    endpoint.script('tools', [{ content: 'Action: write_file\nAction Input: {"path": "a.txt", "content": "hi"}' }, { content: 'Written.' }]);
    const { run, runId } = await gw.runFlow(agentFlow({ include_context: true, tools: ['write_file'] }), { prompt: 'Write a.txt.', _runtime: { provider: 'fake', model: 'tools' } });
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output).to.include({ response: 'Written.' });
    expect(run.output!.meta).to.include({ tool_calls: 1, tool_results: 1 });
    const subRunId = (await gw.children(runId))[0]!.run_id;
    const messages = run.output!.messages as Array<{ role: string; content: string; metadata: Record<string, unknown> }>;
    expect(messages.map((m) => [m.role, m.metadata.kind, m.metadata.message_id])).to.deep.equal([
      ['user', 'agent_turn', `agent:${subRunId}:think:task`],
      ['assistant', 'tool_observation', `agent:${subRunId}:think:tool:call_1_1`],
      ['assistant', 'agent_turn', `agent:${subRunId}:think:answer`],
    ]);
    expect(messages[1]!.content).to.match(/^\[write_file\]: /);
    // The child's node traces (from its ledger) reach the scratchpad, for agent_trace_report.
    const traces = (run.output!.scratchpad as { node_traces: Record<string, { steps: Array<{ status: string; effect: { type: string } }> }> }).node_traces;
    expect(Object.keys(traces).sort()).to.deep.equal(['act', 'reason']);
    expect(traces.act!.steps.map((s) => `${s.effect.type}:${s.status}`)).to.deep.equal(['tool_calls:completed']);
    expect(traces.reason!.steps).to.have.length(2);
  });
});
