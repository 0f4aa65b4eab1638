/**
 * Helpers for the scheduler's durability tests with real `keel serve` / `keel runner` processes
 * (issue 15): the plugin list, the automation routes over HTTP as the admin, and the checks every
 * test makes — each occurrence row matches its run, no occurrence ran twice, every expected tick
 * of a schedule is accounted for (fired, coalesced or skipped with a reason).
 */
import { expect } from 'chai';
import { bundle, edges, multipart, node } from './flow-builder.js';
import { until, type ServedKeel } from './gateway-runs.js';
import type { OccurrenceRow } from './automations-engine.js';

/** The runs stack and the automations plugin, the scheduler looking at its wake index every `pollMs`. */
export function durablePlugins(pollMs = 200): unknown[] {
  return [
    { use: '@keel/plugin-inference' },
    { use: '@keel/plugin-ledger' },
    { use: '@keel/plugin-workspaces' },
    { use: '@keel/plugin-gateway-runs' },
    { use: '@keel/plugin-automations', config: { scheduler: { pollMs } } },
  ];
}

/** start → end, `response` = the prompt (an occurrence that ends at once). */
export const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> end', 'start.prompt -> end.response'),
};

/** start → wait `seconds` (a timed wait kept in the run's saved state) → end with the prompt as `response`. */
export function sleeperFlow(seconds: number) {
  return {
    id: 'sleeper',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
      node({ id: 'pause', type: 'wait_until', inputs: ['duration'], data: { pinDefaults: { duration: seconds } } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
    ],
    edges: edges('start -> pause', 'pause -> end', 'start.prompt -> end.response'),
  };
}

export interface RunRow {
  run_id: string;
  status: string;
  automation_id: string | null;
  role: string | null;
  occurrence_index: number | null;
}

/** The automation routes of one running process (the keel handle follows restarts), as its admin. */
export function durableApi(keel: ServedKeel) {
  let commands = 0;
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await keel.call(method, `/api/gateway${url}`, body);
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 201]);
    return res.body;
  };
  return {
    upload: async (id: string, flow: Parameters<typeof bundle>[2]) => {
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
      expect((await keel.call('POST', '/api/gateway/bundles/upload', body.payload, body.headers)).status).to.equal(201);
    },
    /** Creates an automation of bundle `flowId@1.0.0` with `trigger` (and `policy`), answers its id. */
    create: async (requestId: string, flowId: string, trigger: Record<string, unknown>, policy?: Record<string, unknown>) =>
      (await ok('POST', '/automations', {
        request_id: requestId,
        title: `Durable ${requestId}`,
        target: { bundle_ref: `${flowId}@1.0.0`, flow_id: flowId, input_data: { prompt: `from ${requestId}` } },
        trigger,
        ...(policy ? { policy } : {}),
      })).automation_id as string,
    command: async (id: string, type: string) => ok('POST', `/automations/${id}/commands`, { command_id: `durable-${++commands}-${Date.now()}`, type }),
    summary: async (id: string) => ((await ok('GET', `/automations/${id}`)).summary as { status: string; current_occurrence: { index: number; run_id: string; status: string } | null; occurrence_count: number }),
    /** Every occurrence row, oldest first (pages of 200). */
    occurrences: async (id: string): Promise<OccurrenceRow[]> => {
      const rows: OccurrenceRow[] = [];
      let cursor: string | null = null;
      do {
        const page = await ok('GET', `/automations/${id}/occurrences?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
        rows.push(...(page.items as OccurrenceRow[]));
        cursor = page.next_cursor as string | null;
      } while (cursor);
      return rows.reverse();
    },
    /** The runs GET /runs lists for the automation (every attempt). */
    runs: async (id: string): Promise<RunRow[]> => ((await ok('GET', '/runs?session_kind=occurrence,automation&limit=1000')).items as RunRow[]).filter((r) => r.automation_id === id),
  };
}

export type DurableApi = ReturnType<typeof durableApi>;

/** The tick a schedule occurrence row stands for (its trigger summary ends with `tick N`), null for a manual or event one. */
export function tickOf(row: OccurrenceRow): number | null {
  const match = /tick (\d+)$/.exec(row.trigger.summary);
  return match ? Number(match[1]) : null;
}

/**
 * Every occurrence row matches its run and no occurrence ran twice: each row that ran names a run
 * GET /runs lists with the row's `occurrence_index`, a completed row's run completed, and there is
 * exactly one run per (occurrence, attempt) — here every attempt is the first, so one run per row.
 */
export function expectRowsMatchRuns(rows: OccurrenceRow[], runs: RunRow[]): void {
  expect(rows.map((r) => r.index), 'occurrence indexes are 1..n without gaps').to.deep.equal(rows.map((_, i) => i + 1));
  const ran = rows.filter((r) => r.status !== 'skipped');
  expect(runs.map((r) => r.run_id).sort(), 'one run per occurrence that ran, no duplicate').to.deep.equal(ran.map((r) => r.run_id).sort());
  for (const row of ran) {
    const run = runs.find((r) => r.run_id === row.run_id)!;
    expect(run, `the run of occurrence ${row.index}`).to.not.equal(undefined);
    expect(run, `the run of occurrence ${row.index}`).to.deep.include({ role: 'occurrence', occurrence_index: row.index });
    expect(row.attempts, `occurrence ${row.index} needed no retry`).to.equal(1);
    if (row.status === 'completed') expect(run.status, `the run of completed occurrence ${row.index}`).to.equal('completed');
  }
  for (const row of rows.filter((r) => r.status === 'skipped')) expect(row.run_id ?? null, `skipped row ${row.index} has no run`).to.equal(null);
}

/**
 * Every tick of a schedule from 0 up to the last one handled is accounted for exactly once: a row
 * that fired tick t stands for t (and, coalesced, for first_tick..t), a skipped row for its range.
 * Answers the reasons given for ticks that did not fire on their own.
 */
export function expectTicksAccounted(rows: OccurrenceRow[]): string[] {
  const covered: Array<[number, number, number]> = [];
  const reasons: string[] = [];
  for (const row of rows) {
    if (row.status === 'skipped') {
      expect(row.coalesced, `skipped row ${row.index} names its ticks`).to.not.equal(null);
      covered.push([row.coalesced!.first_tick, row.coalesced!.last_tick, row.index]);
      reasons.push(row.coalesced!.reason);
      continue;
    }
    const tick = tickOf(row);
    if (tick === null) continue;
    if (row.coalesced) {
      expect(row.coalesced.last_tick, `coalesced row ${row.index} fired its last tick`).to.equal(tick);
      expect(row.coalesced.missed_count, `coalesced row ${row.index} counts the ticks it stands for`).to.equal(row.coalesced.last_tick - row.coalesced.first_tick);
      covered.push([row.coalesced.first_tick, tick, row.index]);
      reasons.push(row.coalesced.reason);
    } else covered.push([tick, tick, row.index]);
  }
  covered.sort((a, b) => a[0] - b[0]);
  let next = 0;
  for (const [first, last, index] of covered) {
    expect(first, `occurrence ${index} covers ticks ${first}..${last}; the next unaccounted tick was ${next} (rows: ${JSON.stringify(covered)})`).to.equal(next);
    next = last + 1;
  }
  return reasons;
}

/** Waits until the automation's rows satisfy `ok` (read through the running process). */
export function untilRows(api: DurableApi, id: string, what: string, ok: (rows: OccurrenceRow[]) => boolean, deadline = 60_000): Promise<OccurrenceRow[]> {
  return until(() => api.occurrences(id), { what, ok, deadline, every: 200 });
}

/** Waits (real time) until `ms` have passed since `fromMs` — only to let scheduled ticks come due, never before an assertion of a result. */
export async function untilPassed(fromMs: number, ms: number): Promise<void> {
  await until(() => Date.now(), { what: `${ms} ms to pass`, ok: (now) => now >= fromMs + ms, deadline: ms + 60_000, every: 100 });
}
