import { expect } from 'chai';
import { artifactsGateway } from './helpers/artifacts.js';
import { until } from './helpers/until.js';

/**
 * Files a run writes (the agent's write_file / edit_file) become artifacts of that run with their
 * producer (run, node, ledger cursor); another session gets them only by naming the producing run.
 */

interface Row {
  artifact_id: string;
  run_id: string;
  producing_run_id: string | null;
  session_id: string | null;
  origin: string;
  path: string;
  node_id: string | null;
  ledger_cursor: number | null;
  producer: Record<string, unknown> | null;
  content_type: string;
  size_bytes: number;
}

describe('artifacts: files produced by runs', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let runId = '';
  let rows: Row[] = [];
  before(async () => {
    await gw.boot();
    runId = await gw.run(gw.bob, {
      bundle: 'tools',
      session_id: 'p1',
      input_data: {
        calls: [
          { call_id: 'w', name: 'write_file', arguments: { path: 'out/a.txt', content: 'first' } },
          { call_id: 'e', name: 'edit_file', arguments: { path: 'out/a.txt', old: 'first', new: 'second' } },
          { call_id: 'b', name: 'write_file', arguments: { path: 'out/b.md', content: '# b' } },
        ],
      },
    });
    const run = await gw.finished(gw.bob, runId);
    expect(run.status, run.error ?? '').to.equal('completed');
    rows = await until(async () => (await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts`)).json<{ items: Row[] }>().items, { what: 'the produced files to be listed', ok: (items) => items.length >= 2 });
  });
  after(() => gw.stop());

  it('records each written file once (as it is after the step), with its run, node and ledger cursor', async () => {
    // The step wrote a.txt, edited it and wrote b.md: listeners hear of it once the step is recorded.
    expect(rows.map((r) => r.path).sort()).to.deep.equal(['out/a.txt', 'out/b.md']);
    for (const row of rows) {
      expect(row).to.include({ run_id: runId, producing_run_id: runId, session_id: 'p1', origin: 'run_output', node_id: 'run_tools' });
      expect(row.ledger_cursor).to.be.a('number');
      expect(row.producer).to.include({ kind: 'run', run_id: runId, node_id: 'run_tools', ledger_cursor: row.ledger_cursor });
    }
    const a = rows.find((r) => r.path === 'out/a.txt')!;
    const b = rows.find((r) => r.path === 'out/b.md')!;
    expect(b.content_type).to.equal('text/markdown');
    expect((await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${a.artifact_id}/content`)).body).to.equal('second');
    expect((await gw.get(gw.bob, `/api/gateway/runs/${runId}/artifacts/${b.artifact_id}/content`)).body).to.equal('# b');
    expect((await gw.get(gw.eve, `/api/gateway/runs/${runId}/artifacts`)).statusCode).to.equal(404);
  });

  it('passes a run output to another session only when the reference names its producing run', async () => {
    const id = rows[0]!.artifact_id;
    expect((await gw.start(gw.bob, { session_id: 'p1', input_data: { attachments: [{ $artifact: id }] } })).statusCode).to.equal(200);
    const bare = await gw.start(gw.bob, { session_id: 'p2', input_data: { attachments: [{ $artifact: id }] } });
    expect(bare.statusCode).to.equal(400);
    expect(bare.json<{ detail: { reason_code: string; owner_run_id: string } }>().detail).to.include({ reason_code: 'artifact_not_in_session', owner_run_id: runId });
    expect((await gw.start(gw.bob, { session_id: 'p2', input_data: { attachments: [{ $artifact: id, run_id: runId }] } })).statusCode).to.equal(200);
    const wrong = await gw.start(gw.bob, { session_id: 'p1', input_data: { context: { media: [{ artifact_id: id, run_id: 'some-other-run' }] } } });
    expect(wrong.statusCode).to.equal(400);
    expect(wrong.json<{ detail: { message: string } }>().detail.message).to.match(/has mismatched run_id/);
    // A run without a session must name the producing run too.
    expect((await gw.start(gw.bob, { input_data: { attachments: [id] } })).statusCode).to.equal(400);
    expect((await gw.start(gw.bob, { input_data: { attachments: [{ $artifact: id, run_id: runId }] } })).statusCode).to.equal(200);
  });
});
