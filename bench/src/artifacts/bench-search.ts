/**
 * The artifact search benchmark: `GET /api/gateway/artifacts/search` over a store of 100k artifacts
 * of one account (plus 10k of another account in the same store), with facets and `include_stats`,
 * against a plain LMDB range scan of the same rows in the same run.
 *
 * One kernel in this process (the gateway plugins and `artifacts`, a listener on 127.0.0.1); the
 * records are written through the artifacts index itself (the same write path as an upload, without
 * the blob bytes, which search never reads), from a seeded generator: a mix of content types, names
 * with kind words, sessions, runs, workflows, nodes and tags. Then, one request at a time, each search
 * kind: 2 warm-ups and `queries` measured requests (request sent → body parsed, over HTTP). The
 * baselines, in the same run and the same process: a range read of the account's prefix of
 * `artifacts:search-rows` (what a search reads) and of `artifacts:records` (the full records),
 * decoding every value and doing nothing with it.
 */
import { open, type RootDatabase } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin, artifactsToken, type ArtifactRecord } from '@keel/plugin-artifacts';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { fmt, machineLine, quantile, watchOtherLoad } from '../ledger/kit.js';
import { artifactsSettingsFromEnv, type ArtifactsBenchSettings } from './settings.js';

const ACCOUNT = 'admin';
const OTHER = 'other';
const END = '\uffff';

export interface LatencyFigures {
  name: string;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rows: number;
}

export interface SearchBenchSummary {
  artifacts: number;
  loadSec: number;
  searches: LatencyFigures[];
  baselines: LatencyFigures[];
  otherCores: number;
}

/** A small deterministic generator (mulberry32), so every run searches the same store. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES: Array<[string, string, number]> = [
  ['image/png', 'png', 0.3], ['audio/wav', 'wav', 0.15], ['text/markdown', 'md', 0.15], ['application/json', 'json', 0.1],
  ['application/pdf', 'pdf', 0.1], ['video/mp4', 'mp4', 0.05], ['application/octet-stream', 'bin', 0.15],
];
const WORDS = 'report song voice photo chart notes draft invoice summary scan memo diagram clip recording backup table plan'.split(' ');

function records(account: string, count: number, random: () => number, startMs: number): ArtifactRecord[] {
  const out: ArtifactRecord[] = [];
  for (let i = 0; i < count; i += 1) {
    let pick = random();
    let type = TYPES[TYPES.length - 1]!;
    for (const t of TYPES) {
      if (pick < t[2]) {
        type = t;
        break;
      }
      pick -= t[2];
    }
    const word = WORDS[Math.floor(random() * WORDS.length)]!;
    const session = `s-${Math.floor(random() * 200)}`;
    const produced = random() < 0.4;
    const run = produced ? `run-${Math.floor(random() * 2000)}` : null;
    const filename = `${word}-${i}.${type[1]}`;
    const tags: Record<string, string> = { kind: produced ? 'run_output' : 'attachment', filename, topic: WORDS[Math.floor(random() * WORDS.length)]!, session_id: session };
    if (random() < 0.02) tags.shared = 'user';
    const id = `a${account.length}${i.toString(36).padStart(8, '0')}${Math.floor(random() * 1e9).toString(36)}`;
    out.push({
      artifact_id: id, account, run_id: run, session_id: session, sha256: (i.toString(16) + '0'.repeat(64)).slice(0, 64), size_bytes: 1000 + Math.floor(random() * 5_000_000),
      content_type: type[0], filename, path: `client:${filename}`, source_path: null, origin: produced ? 'run_output' : 'upload', tags,
      semantic_kind: null, render_kind: null, modality: null, workflow_id: produced ? `wf-${Math.floor(random() * 20)}` : null, node_id: produced ? `node-${Math.floor(random() * 8)}` : null,
      turn_id: null, ledger_cursor: produced ? Math.floor(random() * 100) : null, producer: produced ? { kind: 'run', run_id: run } : null, generation: null,
      created_at: new Date(startMs + i).toISOString(),
    });
  }
  return out;
}

function figures(name: string, samples: number[], rows: number): LatencyFigures {
  const sorted = [...samples].sort((a, b) => a - b);
  return { name, p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), maxMs: sorted[sorted.length - 1] ?? NaN, rows };
}

async function measure(queries: number, once: () => Promise<number> | number): Promise<{ samples: number[]; rows: number }> {
  let rows = 0;
  for (let i = 0; i < 2; i += 1) rows = await once();
  const samples: number[] = [];
  for (let i = 0; i < queries; i += 1) {
    const t0 = performance.now();
    rows = await once();
    samples.push(performance.now() - t0);
  }
  return { samples, rows };
}

export async function benchArtifactSearch(settings: ArtifactsBenchSettings = artifactsSettingsFromEnv()): Promise<SearchBenchSummary> {
  console.log(`artifact search: ${settings.artifacts} artifacts of one account (+${settings.otherArtifacts} of another); ${settings.queries} measured requests per kind, one at a time`);
  console.log(`  ${machineLine()}`);
  const kernel: TestKernel = await createTestKernel({
    plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: artifactsPlugin, config: {} }],
    config: { server: { watchdog: { enabled: false } } },
  });
  let env: RootDatabase | null = null;
  try {
    const index = kernel.resolve(artifactsToken) as unknown as { add(make: () => ArtifactRecord): Promise<ArtifactRecord> };
    const random = seeded(7);
    const loadStarted = performance.now();
    const startMs = Date.parse('2026-01-01T00:00:00.000Z');
    const all = [...records(ACCOUNT, settings.artifacts, random, startMs), ...records(OTHER, settings.otherArtifacts, random, startMs)];
    // Writes in flight together share commits (lmdb-js groups them), as concurrent uploads would.
    for (let i = 0; i < all.length; i += 2000) await Promise.all(all.slice(i, i + 2000).map((r) => index.add(() => r)));
    const loadSec = (performance.now() - loadStarted) / 1000;
    console.log(`  loaded ${all.length} records in ${fmt(loadSec, 1)} s`);

    const { url } = await kernel.listen();
    const search = async (query: string): Promise<number> => {
      const res = await fetch(`${url}/api/gateway/artifacts/search?${query}`, { headers: { authorization: `Bearer ${kernel.adminToken}` } });
      const body = (await res.json()) as { total?: number; items?: unknown[] };
      if (res.status !== 200) throw new Error(`search ${query} answered ${res.status}: ${JSON.stringify(body)}`);
      return body.total ?? 0;
    };
    const everything = await search('limit=1');
    if (everything !== settings.artifacts) throw new Error(`the admin's search sees ${everything} artifacts, not ${settings.artifacts}: the bench writes into the wrong account`);
    const firstPage = (await (await fetch(`${url}/api/gateway/artifacts/search?limit=50`, { headers: { authorization: `Bearer ${kernel.adminToken}` } })).json()) as { next_cursor: string };

    const kinds: Array<[string, string]> = [
      ['stats + facets, all rows', 'include_stats=true&limit=50'],
      ['stats + facets, artifact_kind=image,audio', 'include_stats=true&limit=50&artifact_kind=image,audio'],
      ['stats + facets, query=invoice', 'include_stats=true&limit=50&query=invoice'],
      ['stats + facets, tags + content_type=image/*', 'include_stats=true&limit=50&tags=topic=chart&content_type=image/*'],
      ['stats + facets, scope=session', 'include_stats=true&limit=50&scope=session&session_id=s-7'],
      ['page 2 by cursor, no stats', `limit=50&cursor=${encodeURIComponent(firstPage.next_cursor)}`],
      ['stats + facets, order_by=size', 'include_stats=true&limit=50&order_by=size'],
    ];
    const watch = watchOtherLoad();
    const cpuBefore = process.cpuUsage();
    const searches: LatencyFigures[] = [];
    for (const [name, query] of kinds) {
      const { samples, rows } = await measure(settings.queries, () => search(query));
      searches.push(figures(name, samples, rows));
    }

    // The baselines: the same environment opened the way the kernel opens it, read by prefix.
    env = open({ path: `${kernel.dataDir}/db`, maxDbs: 512, overlappingSync: false, compression: false });
    const rowsDb = env.openDB({ name: 'artifacts:search-rows', sharedStructuresKey: Symbol.for('structures') });
    const recordsDb = env.openDB({ name: 'artifacts:records' });
    const scan = (db: typeof rowsDb) => () => {
      let n = 0;
      for (const { value } of db.getRange({ start: [ACCOUNT], end: [ACCOUNT, END] })) if (value) n += 1;
      return n;
    };
    const baselines: LatencyFigures[] = [];
    for (const [name, db] of [['range scan of the search rows', rowsDb], ['range scan of the records', recordsDb]] as const) {
      const { samples, rows } = await measure(settings.queries, scan(db));
      baselines.push(figures(name, samples, rows));
    }
    const cpu = process.cpuUsage(cpuBefore);
    const otherCores = watch.stop((cpu.user + cpu.system) / 1000);

    const summary: SearchBenchSummary = { artifacts: settings.artifacts, loadSec, searches, baselines, otherCores };
    console.log(`\n${searchSummaryText(summary)}`);
    return summary;
  } finally {
    await env?.close();
    await kernel.stop();
  }
}

export function searchSummaryText(s: SearchBenchSummary): string {
  const scan = s.baselines[0]!;
  const lines = [`| what | rows matched | p50 ms | p99 ms | max ms | p50 / scan p50 |`, `|---|---:|---:|---:|---:|---:|`];
  for (const f of [...s.searches, ...s.baselines]) {
    lines.push(`| ${f.name} | ${f.rows} | ${fmt(f.p50Ms, 1)} | ${fmt(f.p99Ms, 1)} | ${fmt(f.maxMs, 1)} | ${fmt(f.p50Ms / scan.p50Ms, 2)}x |`);
  }
  lines.push('', `other load during the measurements: ${fmt(s.otherCores, 2)} cores' worth of CPU from other processes`);
  return lines.join('\n');
}
