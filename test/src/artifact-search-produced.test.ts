import { expect } from 'chai';
import { artifactsGateway } from './helpers/artifacts.js';
import { until } from './helpers/until.js';

/**
 * Search over files a run produced (agent write_file): the producer's data (run, node, ledger cursor)
 * is what the envelope shows and what node_id, run scope and query find; nothing is invented for
 * what the producer did not say (no workflow, no generation).
 */

interface Row {
  artifact_id: string;
  run_id: string;
  node_id: string | null;
  ledger_cursor: number | null;
  workflow_id: string | null;
  semantic_kind: string;
  render_kind: string;
  links: Record<string, string>;
  artifact_envelope_v1: { producer: Record<string, unknown>; generation: Record<string, unknown>; classification_source: string; available_actions: string[] };
}

describe('artifact search: files produced by runs', function () {
  this.timeout(180_000);
  const gw = artifactsGateway();
  let runId = '';
  before(async () => {
    await gw.boot();
    runId = await gw.run(gw.bob, {
      bundle: 'tools',
      session_id: 'made',
      input_data: { calls: [{ call_id: 'w', name: 'write_file', arguments: { path: 'out/chart.js', content: 'console.log(1)' } }] },
    });
    const run = await gw.finished(gw.bob, runId);
    expect(run.status, run.error ?? '').to.equal('completed');
    await until(async () => (await gw.get(gw.bob, '/api/gateway/artifacts/search?node_id=run_tools')).json<{ total: number }>().total, { what: 'the produced file to be searchable', ok: (n) => n === 1 });
  });
  after(() => gw.stop());

  it('shows the producer data as recorded and finds the file by node, run and query', async () => {
    const page = (await gw.get(gw.bob, '/api/gateway/artifacts/search?node_id=run_tools&include_stats=true')).json<{ items: Row[]; facets: Record<string, Record<string, number>> }>();
    const row = page.items[0]!;
    expect(row).to.include({ run_id: runId, node_id: 'run_tools', workflow_id: null, semantic_kind: 'code', render_kind: 'code' });
    expect(row.ledger_cursor).to.be.a('number');
    expect(row.artifact_envelope_v1.producer).to.include({ kind: 'run', run_id: runId, node_id: 'run_tools' });
    expect(row.artifact_envelope_v1.generation).to.deep.equal({});
    expect(row.artifact_envelope_v1.available_actions).to.include.members(['preview', 'download', 'open_run', 'open_ledger']);
    expect(row.links.ledger).to.equal(`/api/gateway/runs/${runId}/ledger`);
    expect(page.facets.node_id).to.deep.equal({ run_tools: 1 });
    expect(page.facets.workflow_id).to.deep.equal({ '(none)': 1 });
    const inRun = (await gw.get(gw.bob, `/api/gateway/artifacts/search?scope=run&run_id=${runId}`)).json<{ items: Row[] }>();
    expect(inRun.items.map((r) => r.artifact_id)).to.deep.equal([row.artifact_id]);
    expect((await gw.get(gw.bob, '/api/gateway/artifacts/search?query=OUT/CHART')).json<{ total: number }>().total).to.equal(1);
    expect((await gw.get(gw.bob, `/api/gateway/artifacts/search?query=${runId}`)).json<{ total: number }>().total).to.equal(1);
    // Eve sees none of it.
    expect((await gw.get(gw.eve, '/api/gateway/artifacts/search?node_id=run_tools')).json<{ total: number }>().total).to.equal(0);
    expect((await gw.get(gw.eve, `/api/gateway/artifacts/search?scope=run&run_id=${runId}`)).statusCode).to.equal(404);
  });
});
