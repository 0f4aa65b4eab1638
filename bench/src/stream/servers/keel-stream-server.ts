/**
 * The keel side, run as a child process: the kernel with the ledger plugin, serving its real
 * `GET /api/gateway/runs/{run_id}/ledger/stream`, plus a small inline plugin that plays the
 * runtime's part: it registers a run and appends its records through the plugin's `LedgerStore`
 * in this process (where a run's records are written in production, `keel serve` with its
 * in-process runner), at the rate the parent asks for.
 *
 * The acknowledgement time of a record is taken by a live-bus listener this plugin subscribes before
 * any stream does: the store wakes the bus once the commit is synced, and the bus calls its
 * listeners in subscription order, so this stamp is the moment fan-out begins (the store's
 * `append` promise itself resolves only after the fan-out has run synchronously).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildConfig, Kernel } from '@keel/kernel';
import { definePlugin, route, schema } from '@keel/plugin-sdk';
import { ledgerToken, liveBusToken } from '@keel/plugin-ledger';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { REPO_ROOT, wallMs } from '../../ledger/kit.js';
import { RunRecords } from '../../ledger/records.js';
import { publishAtRate, type PublishBody, type PublishResult } from '../publisher.js';
import { STREAM_TOKEN_ENV, type CreatedRun } from '../settings.js';

const token = process.env[STREAM_TOKEN_ENV];
if (!token) throw new Error(`${STREAM_TOKEN_ENV} is not set: this script runs as a child of the stream benchmark.`);

const runParams = schema<{ run_id: string }>({ type: 'object', required: ['run_id'], properties: { run_id: { type: 'string', minLength: 1 } } });
const bulkBody = schema<{ count: number; bytes: number }>({
  type: 'object',
  required: ['count', 'bytes'],
  properties: { count: { type: 'integer', minimum: 1 }, bytes: { type: 'integer', minimum: 0 } },
});
const publishBody = schema<PublishBody>({
  type: 'object',
  required: ['count', 'ratePerSec'],
  properties: { count: { type: 'integer', minimum: 1 }, ratePerSec: { type: 'number', exclusiveMinimum: 0 } },
});

const benchPlugin = definePlugin({
  id: 'bench-stream',
  version: '0.0.0',
  sdk: '^1.0.0',
  description: 'Stream benchmark driver: registers runs and appends their records at a rate',
  defaultPrefix: '/bench',
  deps: { ledger: ledgerToken, live: liveBusToken },
  setup({ deps }) {
    const { store } = deps.ledger;
    const hub = deps.live;
    const acks = new Map<string, number[]>();
    return {
      routes: [
        route({
          method: 'POST',
          path: '/runs',
          hidden: true,
          handler: async ({ principal }): Promise<CreatedRun> => {
            const runId = randomUUID();
            await store.registerRun({ run_id: runId, account: principal!.account, parent_run_id: null, root_run_id: runId, terminal: false, status: 'running' });
            const stamps: number[] = [];
            acks.set(runId, stamps);
            hub.subscribe(runId, (message) => {
              if (message.type === 'append') stamps[message.cursor - 1] = wallMs();
            });
            return { run_id: runId, stream_path: `/api/gateway/runs/${runId}/ledger/stream` };
          },
        }),
        route({
          // The backlog benchmark's big ledger: `count` records of about `bytes` each, appended as fast as commits go, then terminal.
          method: 'POST',
          path: '/runs/:run_id/bulk',
          hidden: true,
          params: runParams,
          body: bulkBody,
          handler: async ({ params, body }) => {
            const records = new RunRecords(params.run_id);
            const padding = 'x'.repeat(body.bytes);
            const writes: Array<Promise<number>> = [];
            for (let i = 0; i < body.count; i++) writes.push(store.append(records.next(i, { padding })));
            await Promise.all(writes);
            await store.markTerminal(params.run_id, 'completed');
            return { count: body.count };
          },
        }),
        route({
          method: 'POST',
          path: '/runs/:run_id/publish',
          hidden: true,
          params: runParams,
          body: publishBody,
          handler: async ({ params, body }): Promise<PublishResult> => {
            const stamps = acks.get(params.run_id);
            if (!stamps) throw new Error(`unknown run ${params.run_id}`);
            const records = new RunRecords(params.run_id);
            const sent = await publishAtRate(body, async (i, stamp) => {
              await store.append(records.next(i, { ...stamp }));
            });
            await store.markTerminal(params.run_id, 'completed');
            return { sent, acks: stamps };
          },
        }),
      ],
    };
  },
});

const dataDir = mkdtempSync(path.join(tmpdir(), 'keel-bench-stream-'));
const { config } = buildConfig({
  // Every subscriber streams with the one admin token from one address: lift the per-account stream cap
  // (256 by default) and the connection bounds (256 per source address, 1024 in all).
  server: { dataDir, logLevel: 'warn', port: 0, watchdog: { enabled: false }, live: { streamsPerAccount: 1_000_000 }, http: { connectionsPerSource: 1_000_000, maxConnections: 1_000_000 } },
  // BENCH_STREAM_LEDGER_PLUGIN: an absolute path to another build of the ledger plugin (to measure a candidate fix).
  plugins: [{ use: process.env.BENCH_STREAM_LEDGER_PLUGIN || '@keel/plugin-ledger' }],
});
// Only the token: a KEEL_* setting of the caller's shell has no business in a benchmark.
const kernel = await Kernel.boot({ config, mode: 'server', baseDir: REPO_ROOT, env: { KEEL_ADMIN_TOKEN: token }, inlinePlugins: [{ plugin: benchPlugin }] });
const { port } = await kernel.listen(0, '127.0.0.1');
serveAsChild(port, async () => {
  await kernel.stop();
  rmSync(dataDir, { recursive: true, force: true });
});
