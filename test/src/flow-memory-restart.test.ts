import { expect } from 'chai';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel, until } from './helpers/gateway-runs.js';

/**
 * Memory survives a crash of a real `keel serve` (kill -9): a note kept in the context before a
 * wait stays one span and one context message after the restart, and the restarted process
 * recalls it.
 */
describe('memory plugin across a kill -9 of keel serve', function () {
  this.timeout(240_000);
  const keel = new ServedKeel();
  before(() => keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }, { use: '@keel/plugin-memory' }]));
  after(() => keel.dispose());

  it('a kept note before an ask_user is one span and one [MEMORY NOTE] message after the restart, and is recalled', async () => {
    await keel.start();
    const flow = {
      id: 'main',
      nodes: [
        node({ id: 'start', type: 'on_flow_start', outputs: [] }),
        node({ id: 'n', type: 'memory_note', inputs: ['content', 'keep_in_context', 'scope'], outputs: ['note_id'], data: { pinDefaults: { content: 'The harbour opens at dawn', keep_in_context: true, scope: 'global' } } }),
        node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Go on?' } } }),
        node({ id: 'q', type: 'memory_query', inputs: ['query', 'scope'], outputs: ['span_ids'], data: { pinDefaults: { query: 'harbour', scope: 'global' } } }),
        node({ id: 'ctx', type: 'get_context', exec: false, outputs: ['messages'] }),
        node({ id: 'end', type: 'on_flow_end', inputs: ['note_id', 'found', 'messages'] }),
      ],
      edges: edges('start -> n', 'n -> ask', 'ask -> q', 'q -> end', 'n.note_id -> end.note_id', 'q.span_ids -> end.found', 'ctx.messages -> end.messages'),
    };
    const upload = multipart({}, { name: 'm.flow', bytes: bundle('mem', '1.0.0', flow) });
    expect((await keel.call('POST', '/api/gateway/bundles/upload', upload.payload, upload.headers)).status).to.equal(201);
    const runId = (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'mem' })).body.run_id as string;
    const waiting = await until(() => keel.run(runId), { what: 'the run to wait on the user', ok: (r) => r.status === 'waiting', deadline: 60_000 });

    await keel.restart();
    const command = { command_id: crypto.randomUUID(), run_id: runId, type: 'resume', payload: { wait_key: waiting.waiting!.wait_key, payload: { response: 'yes' } } };
    expect((await keel.call('POST', '/api/gateway/commands', command)).status).to.equal(200);
    const run = await until(() => keel.run(runId), { what: 'the run to complete', ok: (r) => r.status === 'completed' || r.status === 'failed', deadline: 60_000 });
    expect(run.status, run.error ?? '').to.equal('completed');
    const noteId = String(run.output!.note_id);
    expect(run.output!.found).to.deep.equal([noteId]);
    const notes = (run.output!.messages as Array<{ content: string }>).filter((m) => m.content.startsWith('[MEMORY NOTE]'));
    expect(notes.map((m) => m.content)).to.deep.equal(['[MEMORY NOTE]\nThe harbour opens at dawn']);
    const spans = (await keel.call('GET', '/api/gateway/memory/spans?owner_id=global_memory')).body.items as Array<{ span_id: string }>;
    expect(spans.map((s) => s.span_id)).to.deep.equal([noteId]);
    const ledger = await keel.ledger(runId);
    expect(ledger.filter((r) => r.effect?.type === 'memory_note').map((r) => r.status)).to.deep.equal(['started', 'completed']);
  });
});
