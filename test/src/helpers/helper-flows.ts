/**
 * Runs small flows of pure helper nodes through the HTTP API (upload a bundle, start a run, wait for
 * it to end, read the run and its ledger), for the `flow-helpers-*` tests.
 */
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { edges, node } from './flow-builder.js';
import { gatewayRuns, until, type LedgerItem, type RunRecord } from './gateway-runs.js';

/** A pure node (no exec pins) of `type`. */
export const pure = (id: string, type: string, inputs: string[], outputs: string[], data: Record<string, unknown> = {}) => node({ id, type, exec: false, inputs, outputs, data });

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

export function helperFlows(kernel: () => TestKernel) {
  const api = gatewayRuns(kernel);
  let count = 0;
  return {
    /**
     * start (outputs: the keys of `input`) → end (inputs: `results`), with `nodes` between them wired by `links`
     * (`edges` syntax); answers the ended run and its ledger.
     */
    async run(nodes: ReturnType<typeof node>[], links: string[], results: string[], input: Record<string, unknown> = {}): Promise<{ run: RunRecord; ledger: LedgerItem[] }> {
      const k = kernel();
      const id = `helpers-${++count}`;
      const flow = {
        id,
        nodes: [node({ id: 'start', type: 'on_flow_start', outputs: Object.keys(input) }), ...nodes, node({ id: 'end', type: 'on_flow_end', inputs: results })],
        // start → end unless the links give their own exec chain from start.
        edges: edges(...(links.some((l) => l.startsWith('start ->')) ? [] : ['start -> end']), ...links),
      };
      await api.uploadBundle(id, flow);
      const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: id, input_data: input } });
      expect(res.statusCode, res.body).to.equal(200);
      const runId = res.json<{ run_id: string }>().run_id;
      const run = await until(() => api.getRun(runId), { what: `run ${runId} (${id}) to end`, ok: ended, deadline: 90_000 });
      return { run, ledger: await api.ledger(runId) };
    },
    /** A flow that ends completed, whose pure nodes wrote no ledger record; answers its output. */
    async output(nodes: ReturnType<typeof node>[], links: string[], results: string[], input: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const { run, ledger } = await this.run(nodes, links, results, input);
      expect(run.status, JSON.stringify(run)).to.equal('completed');
      const pureIds = nodes.map((n) => n.id);
      expect(ledger.filter((r) => pureIds.includes(r.node_id)), 'pure nodes write no ledger records').to.deep.equal([]);
      return run.output!;
    },
  };
}
