/**
 * Chaos on the durable step path (issue 21): runs mixing staged answers, an `emit_event` to a
 * waiting listener run, a subflow, an `ask_user` and more answers, with a live ledger stream open
 * on each, killed with -9 round after round at whatever point they reached. What a client saw
 * before a kill (the ledger route and the stream) is there after it in the same place; cursors are
 * dense; no effect completes twice; every run ends once with the right output.
 */
import { expect } from 'chai';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { ServedKeel, until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { json, openSse, type SseStream } from './helpers/sse.js';

/** answers in a loop, emit `go` to the session, a subflow of 3 answers, ask_user, an answer with the reply, answers in a loop again; a `go` listener answers each event. */
function chaosFlow() {
  return {
    id: 'chaos',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['count'] }),
      node({ id: 'loop', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
      node({ id: 'say', type: 'answer_user', inputs: ['message'] }),
      node({ id: 'emit', type: 'emit_event', inputs: ['name', 'payload'], outputs: ['delivered'], data: { effectConfig: { scope: 'session' }, pinDefaults: { name: 'go', payload: { n: 1 } } } }),
      node({ id: 'sub', type: 'subflow', inputs: ['input'], outputs: ['output'], data: { subflowId: 'child' } }),
      node({ id: 'ask', type: 'ask_user', inputs: ['prompt'], outputs: ['response'], data: { pinDefaults: { prompt: 'Name?' } } }),
      node({ id: 'tail', type: 'answer_user', inputs: ['message'] }),
      node({ id: 'again', type: 'for', inputs: ['start', 'end', 'step'], outputs: ['i'], data: { pinDefaults: { start: 0, step: 1 } } }),
      node({ id: 'say2', type: 'answer_user', inputs: ['message'] }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'delivered'] }),
      node({ id: 'listen', type: 'on_event', inputs: ['scope'], outputs: ['name'], data: { eventConfig: { name: 'go', scope: 'session' } } }),
      node({ id: 'heard', type: 'answer_user', inputs: ['message'] }),
    ],
    edges: edges(
      'start -> loop', 'loop:loop -> say', 'loop:done -> emit', 'emit -> sub', 'sub -> ask', 'ask -> tail', 'tail -> again', 'again:loop -> say2', 'again:done -> end',
      'start.count -> loop.end', 'loop.i -> say.message', 'start.count -> again.end', 'again.i -> say2.message', 'ask.response -> tail.message', 'ask.response -> end.response', 'emit.delivered -> end.delivered',
      'listen -> heard', 'listen.name -> heard.message',
    ),
  };
}

function childFlow() {
  const says = [1, 2, 3].map((i) => node({ id: `c${i}`, type: 'answer_user', inputs: ['message'], data: { pinDefaults: { message: `child ${i}` } } }));
  return {
    id: 'child',
    nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), ...says, node({ id: 'end', type: 'on_flow_end', inputs: ['response'], data: { pinDefaults: { response: 'child done' } } })],
    edges: edges('start -> c1', 'c1 -> c2', 'c2 -> c3', 'c3 -> end'),
  };
}

const ended = (status: string | undefined) => status === 'completed' || status === 'failed' || status === 'cancelled';

/** What a stream showed: the step records by cursor (its `id`). */
function streamed(stream: SseStream): Map<number, Record<string, unknown>> {
  const seen = new Map<number, Record<string, unknown>>();
  for (const event of stream.events) if (event.event === 'step' && event.id !== undefined) seen.set(Number(event.id), json(event));
  return seen;
}

/** Dense cursors, no effect completed twice, one terminal status. */
function expectWhole(items: LedgerItem[], what: string): void {
  expect(items.map((r) => r.cursor), `${what}: cursors`).to.deep.equal(items.map((_, i) => i + 1));
  const finals = items.filter((r) => r.idempotency_key && !r.idempotency_key.startsWith('system:') && (r.status === 'completed' || r.status === 'waiting')).map((r) => r.idempotency_key);
  expect(new Set(finals).size, `${what}: final records of one effect`).to.equal(finals.length);
  expect(items.filter((r) => r.idempotency_key?.startsWith('system:terminal_status:')).length, `${what}: terminal statuses`).to.be.at.most(1);
}

describe('durable21 attack: kill -9 round after round through answers, events, subflows and asks, streams open', function () {
  this.timeout(600_000);
  const keel = new ServedKeel();
  before(async () => {
    keel.configure([{ use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' }]);
    await keel.start();
    const body = multipart({}, { name: 'chaos.flow', bytes: bundle('chaos', '1.0.0', chaosFlow(), [childFlow()]) });
    expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
  });
  after(() => keel.dispose());

  it('every record shown before a kill is in its place after it; every run ends once with its reply', async () => {
    const ROUNDS = 4;
    const RUNS = 8;
    const count = (i: number) => 1000 + 500 * i;
    const ids = await Promise.all(Array.from({ length: RUNS }, async (_, i) => (await keel.call('POST', '/api/gateway/runs/start', { bundle_id: 'chaos', session_id: `chaos-${i}`, input_data: { count: count(i) } })).body.run_id as string));
    /** Every run of the trees (roots, their listeners and subflows). */
    const all = async () => {
      const runs: RunRecord[] = [];
      for (const id of ids) runs.push(await keel.run(id), ...((await keel.call('GET', `/api/gateway/runs?parent_run_id=${id}`)).body.items as RunRecord[]));
      return runs;
    };
    /** A whole ledger, page after page. */
    const ledger = async (runId: string) => {
      const items: LedgerItem[] = [];
      for (;;) {
        const page = (await keel.call('GET', `/api/gateway/runs/${runId}/ledger?after=${items.length}&limit=2000`)).body.items as LedgerItem[];
        if (!page.length) return items;
        items.push(...page);
      }
    };
    const answered = new Set<string>();
    /** From round 2 on, answers each root's ask once it waits on it (a resume command). */
    const answerAsks = async (round: number) => {
      if (round < 2) return;
      for (const id of ids) {
        if (answered.has(id)) continue;
        const run = await keel.run(id);
        if (run.status === 'waiting' && run.waiting?.wait_key && !run.waiting.wait_key.startsWith('pause:')) {
          const res = await keel.call('POST', '/api/gateway/commands', { command_id: crypto.randomUUID(), run_id: id, type: 'resume', payload: { payload: { response: `reply ${id}` } } });
          expect(res.status).to.equal(200);
          answered.add(id);
        }
      }
    };
    const roots = () => Promise.all(ids.map((id) => keel.run(id)));

    for (let round = 0; round <= ROUNDS; round++) {
      // Streams on every run of the trees, from the start of each ledger.
      const streams = await Promise.all((await all()).map(async (r) => [r.run_id, await openSse(`${keel.url}/api/gateway/runs/${r.run_id}/ledger/stream?after=0`, { token: keel.adminToken })] as const));
      const reading = streams.map(([, s]) => s.collect({ until: () => false, deadline: 600_000, what: 'the kill' }).catch(() => undefined));
      if (round < ROUNDS) {
        // Kill once a few runs moved in this process (or none can: each waits or ended).
        const before = (await roots()).map((r) => (r as unknown as { updated_at: string }).updated_at);
        await until(async () => {
          await answerAsks(round);
          return roots();
        }, {
          what: `progress in round ${round}`,
          ok: (now) => now.filter((r, i) => (r as unknown as { updated_at: string }).updated_at !== before[i]).length >= 3 || now.every((r) => r.status === 'waiting' || ended(r.status)),
          deadline: 120_000,
          every: 10,
        });
      } else {
        await until(async () => {
          await answerAsks(round);
          return roots();
        }, { what: 'every run to end', ok: (now) => now.every((r) => ended(r.status)), deadline: 300_000, every: 100 });
      }
      // What clients were shown just before the kill: each ledger (route) and each stream.
      const shown = new Map<string, LedgerItem[]>();
      for (const r of await all()) shown.set(r.run_id, await ledger(r.run_id));
      if (round < ROUNDS) await keel.restart();
      for (const [, stream] of streams) await stream.close();
      await Promise.all(reading);

      for (const [runId, before] of shown) {
        const after = await ledger(runId);
        expect(after.slice(0, before.length), `round ${round}: ${runId} keeps what the route showed`).to.deep.equal(before);
        expectWhole(after, `round ${round}: ${runId}`);
      }
      for (const [runId, stream] of streams) {
        const after = await ledger(runId);
        for (const [cursor, record] of streamed(stream)) {
          const kept = after[cursor - 1] as unknown as Record<string, unknown> | undefined;
          expect([kept?.step_id, kept?.status], `round ${round}: ${runId} keeps streamed record ${cursor}`).to.deep.equal([record.step_id, record.status]);
        }
      }
    }

    for (const [i, id] of ids.entries()) {
      const run = await keel.run(id);
      expect(run.status, `${id}: ${run.error ?? ''}`).to.equal('completed');
      expect(run.output).to.deep.include({ response: `reply ${id}` });
      // An emit_event is delivered at least once across a crash, not exactly once (a known gap, older than
      // issue 21): a kill after the listener's resume commit and before the emitter's record makes the
      // replay deliver again, and the replay counts only the listeners still waiting (0 or 1 here).
      expect(run.output!.delivered).to.be.oneOf([0, 1]);
      const items = await ledger(id);
      const says = (node: string) => items.filter((r) => r.node_id === node && r.status === 'completed').map((r) => Number((r.result as { message: unknown }).message));
      const counted = Array.from({ length: count(i) }, (_, n) => n);
      expect(says('say'), `${id}: each answer once, in order`).to.deep.equal(counted);
      expect(says('say2'), `${id}: each answer after the ask once, in order`).to.deep.equal(counted);
      expect(items.filter((r) => r.node_id === 'tail' && r.status === 'completed').map((r) => (r.result as { message: unknown }).message)).to.deep.equal([`reply ${id}`]);
    }
    for (const r of await all()) {
      const items = await ledger(r.run_id);
      if (r.workflow_id.endsWith(':child')) {
        expect(r.status).to.equal('completed');
        expect(items.filter((x) => x.effect?.type === 'answer_user' && x.status === 'completed').map((x) => (x.result as { message: unknown }).message)).to.deep.equal(['child 1', 'child 2', 'child 3']);
      }
      if (r.workflow_id.includes('visual_event_listener')) {
        // The listener heard `go` (at least once, see above), and answered each time it heard it once.
        const resumes = items.filter((x) => x.effect?.type === 'resume').length;
        expect(resumes, `${r.run_id}: resumes`).to.be.at.least(1);
        expect(items.filter((x) => x.node_id === 'heard' && x.status === 'completed'), `${r.run_id}: heard`).to.have.length(resumes);
      }
    }
  });
});
