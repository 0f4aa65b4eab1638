/**
 * Helpers for the scheduler's tests: a clock the test moves (injected as `core.clock`), a kernel with
 * the runs stack and the automations plugin on a given data dir, and the automation routes as an account.
 */
import { expect } from 'chai';
import { core } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { automationsPlugin } from '@keel/plugin-automations';
import { edges, node } from './flow-builder.js';
import { until } from './until.js';

/** A clock that moves only when the test says so (starts at the real now). */
export class TestClock {
  ms = Date.now();
  now(): Date {
    return new Date(this.ms);
  }
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** The runs stack with the automations plugin (`withoutAutomations`: the runs stack alone, as if the plugin were not loaded). */
export async function automationsKernel(clock: TestClock, options: { dataDir?: string; scheduler?: Record<string, unknown>; withoutAutomations?: boolean } = {}): Promise<TestKernel> {
  const automations = { plugin: automationsPlugin, config: { scheduler: { pollMs: 20, ...options.scheduler } } };
  return createTestKernel({
    plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, ...(options.withoutAutomations ? [] : [automations])],
    overrides: [[core.clock, clock]],
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
}

/** start → end, `response` = the prompt, `notify` = input `notify`. */
export const echoFlow = {
  id: 'echo',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: ['prompt', 'notify'] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response', 'notify'] })],
  edges: edges('start -> end', 'start.prompt -> end.response', 'start.notify -> end.notify'),
};

/** A flow whose runs fail at start (a node type no plugin provides). */
export const failingFlow = {
  id: 'broken',
  nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), node({ id: 'warp', type: 'quantum_teleport', inputs: [], outputs: [] }), node({ id: 'end', type: 'on_flow_end', inputs: ['response'] })],
  edges: edges('start -> warp', 'warp -> end'),
};

export interface OccurrenceRow {
  run_id: string | null;
  index: number;
  attempts: number;
  status: string;
  fired_at: string;
  finished_at: string | null;
  trigger: { source_id: string; summary: string };
  user_turn: string;
  answer: string;
  notify: unknown;
  failure?: { reason_code: string; message: string; attempts: number };
  waits: Array<{ kind: string }>;
  ledger_url?: string;
  coalesced: { first_tick: number; last_tick: number; missed_count: number; reason: string } | null;
  scheduled_at: string | null;
}

export interface AttentionItem {
  kind: string;
  automation_id: string;
  run_id: string;
  index: number;
  title: string;
  body?: string;
  cursor: string;
}

/** The automation routes as the account holding `token`. */
export function automationsApi(kernel: () => TestKernel, token: string) {
  const call = async (method: string, url: string, payload?: unknown) => kernel().inject({ method, url: `/api/gateway${url}`, token, ...(payload === undefined ? {} : { payload }) });
  let commands = 0;
  return {
    call,
    create: async (body: Record<string, unknown>): Promise<string> => {
      const res = await call('POST', '/automations', body);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ automation_id: string }>().automation_id;
    },
    command: async (id: string, type: string, payload?: Record<string, unknown>) => {
      const res = await call('POST', `/automations/${id}/commands`, { command_id: `cmd-${++commands}-${Date.now()}`, type, ...(payload ? { payload } : {}) });
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ command_id: string; accepted: boolean }>();
    },
    occurrences: async (id: string, query = ''): Promise<OccurrenceRow[]> => {
      const res = await call('GET', `/automations/${id}/occurrences${query}`);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ items: OccurrenceRow[] }>().items;
    },
    attention: async (id: string): Promise<AttentionItem[]> => {
      const res = await call('GET', `/automations/${id}/attention`);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ items: AttentionItem[] }>().items;
    },
    summary: async (id: string) => {
      const res = await call('GET', `/automations/${id}`);
      expect(res.statusCode, res.body).to.equal(200);
      return res.json<{ summary: Record<string, unknown> & { status: string; current_occurrence: unknown; next_fire_at?: string } }>().summary;
    },
    /** Waits until the occurrences satisfy `ok`. */
    untilOccurrences: (id: string, what: string, ok: (rows: OccurrenceRow[]) => boolean, deadline = 60_000) =>
      until(async () => {
        const res = await call('GET', `/automations/${id}/occurrences`);
        return res.json<{ items: OccurrenceRow[] }>().items ?? [];
      }, { what, ok, deadline }),
  };
}

/** Every tick an automation's rows account for (fired ticks, ticks coalesced into them, skipped ranges), sorted. */
export function accountedTicks(rows: OccurrenceRow[]): number[] {
  const ticks: number[] = [];
  for (const row of rows) {
    const tick = Number(/tick (\d+)/.exec(row.trigger.summary)?.[1] ?? NaN);
    if (row.status === 'skipped' && row.coalesced) {
      for (let t = row.coalesced.first_tick; t <= row.coalesced.last_tick; t++) ticks.push(t);
      continue;
    }
    if (row.coalesced) for (let t = row.coalesced.first_tick; t < row.coalesced.last_tick; t++) ticks.push(t);
    ticks.push(tick);
  }
  return ticks.sort((a, b) => a - b);
}
