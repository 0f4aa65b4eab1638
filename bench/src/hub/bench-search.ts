/**
 * The hub search benchmark: `GET /hub/search` latency over a large hub (100k messages by default),
 * keyword and semantic. One keel child (the kernel with the hub and, when the real glove-sif-50d
 * embedder of ../shared/models is there, the inference plugin); this parent loads the corpus over
 * HTTP (one poster seat, `channels` public rooms, sentences of common English words from a seeded
 * generator, so every run searches the same text) and then searches, one request at a time:
 *   1. keyword (`mode=lexical`), before any embedding runs;
 *   2. the semantic index is turned on (`PUT /hub/admin/embedding`) and filled; the fill time is reported;
 *   3. semantic (`mode=semantic`) and fused (mode unset: keyword and meaning fused).
 * Each mode: one warm-up search (it loads the index or the vectors), then `queries` two-word queries,
 * each from a fresh reader's budget (the hub paces a seat at 30 searches/min). Figures: p50, p99 and
 * max latency (ms, request sent → answer parsed), the server's CPU per search, and the load other
 * processes put on the machine meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { cpuProfArgs, cpuProfDirFromEnv } from '../common/server-settings.js';
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { fmt, machineLine, quantile, REPO_ROOT, watchOtherLoad } from '../ledger/kit.js';
import { HUB_TOKEN_ENV, hubSearchSettingsFromEnv, SEARCH_EMBEDDINGS_DIR_ENV, type HubSearchBenchSettings } from './settings.js';

const SERVER_SCRIPT = new URL('./servers/keel-hub-search-server.js', import.meta.url);
const EMBEDDINGS_DIR = path.resolve(REPO_ROOT, '..', 'shared', 'models', 'embeddings');
const GLOVE_FILE = path.join(EMBEDDINGS_DIR, 'glove-sif-50d', 'onnx', 'model.onnx');
/** Searches per reader seat: within the hub's burst of 10, so no search is refused for pace. */
const SEARCHES_PER_READER = 8;

const WORDS = ('release deploy server database backup weather rain storm market price budget team meeting plan design review test bug fix '
  + 'customer order invoice payment travel flight hotel train music guitar concert movie film book story garden flower tree river '
  + 'doctor hospital school student teacher city road car bridge computer network security password email report sales growth').split(' ');

export interface SearchModeFigures {
  mode: string;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  serverCpuMs: number;
  otherCores: number;
  hitsMean: number;
}

export interface HubSearchSummary {
  messages: number;
  loadSec: number;
  fillSec: number | null;
  modes: SearchModeFigures[];
  skipped: string | null;
}

export async function benchHubSearch(settings: HubSearchBenchSettings = hubSearchSettingsFromEnv()): Promise<HubSearchSummary> {
  const semantic = existsSync(GLOVE_FILE);
  const skipped = semantic ? null : `semantic search skipped: ${GLOVE_FILE} is absent (the real glove-sif-50d embedder of ../shared/models)`;
  console.log(`hub search: ${settings.messages} messages in ${settings.channels} rooms; ${settings.queries} searches per mode, one at a time`);
  console.log(`  ${machineLine()}`);
  if (skipped) console.log(`  ${skipped}`);
  const token = `keel_bench_${randomBytes(18).toString('hex')}`;
  process.env[HUB_TOKEN_ENV] = token;
  if (semantic) process.env[SEARCH_EMBEDDINGS_DIR_ENV] = EMBEDDINGS_DIR;
  let server: ServerProcess;
  try {
    server = await startServer(SERVER_SCRIPT, cpuProfArgs(cpuProfDirFromEnv()));
  } finally {
    delete process.env[HUB_TOKEN_ENV];
    delete process.env[SEARCH_EMBEDDINGS_DIR_ENV];
  }
  try {
    const hub = new HubApi(`http://127.0.0.1:${server.port}/hub`, token);
    const rooms = Array.from({ length: settings.channels }, (_, i) => `search-room-${i}`);
    const poster = await hub.register('search-poster');
    for (const room of rooms) await hub.call('POST', '/channels', poster, { name: room, private: false });

    const loadStarted = performance.now();
    const random = seeded(42);
    let next = 0;
    await Promise.all(Array.from({ length: settings.loadConcurrency }, async () => {
      while (next < settings.messages) {
        const i = next++;
        await hub.call('POST', `/channels/${rooms[i % rooms.length]}/messages`, poster, { body: sentence(random) });
        if ((i + 1) % 10_000 === 0) console.log(`    loaded ${i + 1} messages (${fmt((performance.now() - loadStarted) / 1000, 0)} s)`);
      }
    }));
    const loadSec = (performance.now() - loadStarted) / 1000;
    console.log(`  loaded ${settings.messages} messages in ${fmt(loadSec, 1)} s (${fmt(settings.messages / loadSec, 0)} msg/s)`);

    const readers = new Readers(hub, rooms);
    const queries = Array.from({ length: settings.queries }, () => `${pick(random)} ${pick(random)}`);
    const modes: SearchModeFigures[] = [await measureMode(hub, server, readers, 'lexical', queries)];
    let fillSec: number | null = null;
    if (semantic) {
      const fillStarted = performance.now();
      await hub.call('PUT', '/admin/embedding', token, { model: 'local/glove-sif-50d' });
      const deadline = Date.now() + settings.fillTimeoutSec * 1000;
      for (;;) {
        const status = await hub.call<{ state: string; coverage: number; rows: number }>('GET', '/admin/embedding', token);
        if (status.state === 'ready') break;
        if (Date.now() > deadline) throw new Error(`the semantic index did not fill within ${settings.fillTimeoutSec} s (state ${status.state}, ${status.rows} rows)`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      fillSec = (performance.now() - fillStarted) / 1000;
      console.log(`  semantic index filled in ${fmt(fillSec, 1)} s (${fmt(settings.messages / fillSec, 0)} docs/s)`);
      modes.push(await measureMode(hub, server, readers, 'semantic', queries));
      modes.push(await measureMode(hub, server, readers, 'fused', queries));
    }
    const summary = { messages: settings.messages, loadSec, fillSec, modes, skipped };
    console.log(`\n${summaryText(summary)}`);
    return summary;
  } finally {
    await server.stop();
  }
}

async function measureMode(hub: HubApi, server: ServerProcess, readers: Readers, mode: 'lexical' | 'semantic' | 'fused', queries: string[]): Promise<SearchModeFigures> {
  const param = mode === 'fused' ? '' : `&mode=${mode}`;
  const search = async (q: string) => hub.call<Record<string, { total: number }> & { mode_used: string }>('GET', `/search?q=${encodeURIComponent(q)}${param}`, await readers.next());
  const warm = await search(queries[0]!);
  if (mode !== 'lexical' && warm.mode_used !== mode) throw new Error(`a ${mode} search was served as ${warm.mode_used}`);
  const load = watchOtherLoad();
  const cpuBefore = await server.cpuMicros();
  const ownBefore = process.cpuUsage();
  const ms: number[] = [];
  let hits = 0;
  for (const q of queries) {
    const key = await readers.next();
    const started = performance.now();
    const report = await hub.call<Record<string, { total: number }>>('GET', `/search?q=${encodeURIComponent(q)}${param}`, key);
    ms.push(performance.now() - started);
    hits += report.messages!.total + report.open_threads!.total;
  }
  const serverCpu = ((await server.cpuMicros()) - cpuBefore) / 1000;
  const own = process.cpuUsage(ownBefore);
  const otherCores = load.stop(serverCpu + (own.user + own.system) / 1000);
  const figures = { mode, p50Ms: quantile(ms, 0.5), p99Ms: quantile(ms, 0.99), maxMs: Math.max(...ms), serverCpuMs: serverCpu / queries.length, otherCores, hitsMean: hits / queries.length };
  console.log(`  ${mode.padEnd(8)} p50 ${fmt(figures.p50Ms)} ms  p99 ${fmt(figures.p99Ms)} ms  max ${fmt(figures.maxMs)} ms  server cpu ${fmt(figures.serverCpuMs)} ms/search  `
    + `mean message hits ${fmt(figures.hitsMean, 0)}  other load ${fmt(otherCores)} cores`);
  return figures;
}

function summaryText(s: HubSearchSummary): string {
  const lines = [`hub search over ${s.messages} messages (loaded in ${fmt(s.loadSec, 1)} s${s.fillSec === null ? '' : `, semantic index filled in ${fmt(s.fillSec, 1)} s`}):`];
  lines.push(`${'mode'.padEnd(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'max ms'.padStart(10)}${'cpu ms'.padStart(10)}${'other'.padStart(8)}`);
  for (const m of s.modes) lines.push(`${m.mode.padEnd(10)}${fmt(m.p50Ms).padStart(10)}${fmt(m.p99Ms).padStart(10)}${fmt(m.maxMs).padStart(10)}${fmt(m.serverCpuMs).padStart(10)}${fmt(m.otherCores).padStart(8)}`);
  if (s.skipped) lines.push(s.skipped);
  return lines.join('\n');
}

/** Reader seats that belong to every room, each used for at most `SEARCHES_PER_READER` searches. */
class Readers {
  private key = '';
  private used = SEARCHES_PER_READER;
  private count = 0;

  constructor(private readonly hub: HubApi, private readonly rooms: string[]) {}

  async next(): Promise<string> {
    if (this.used >= SEARCHES_PER_READER) {
      this.key = await this.hub.register(`search-reader-${++this.count}`);
      for (const room of this.rooms) await this.hub.call('POST', `/channels/${room}/join`, this.key, {});
      this.used = 0;
    }
    this.used++;
    return this.key;
  }
}

class HubApi {
  constructor(private readonly base: string, private readonly adminToken: string) {}

  async register(id: string): Promise<string> {
    return (await this.call<{ api_key: string }>('POST', '/agents', this.adminToken, { id })).api_key;
  }

  async call<T = unknown>(method: string, url: string, key: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}${url}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
    return JSON.parse(text) as T;
  }
}

/** A small deterministic generator (mulberry32), so every run loads the same corpus. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(random: () => number): string {
  return WORDS[Math.floor(random() * WORDS.length)]!;
}

function sentence(random: () => number): string {
  const n = 6 + Math.floor(random() * 10);
  return `${Array.from({ length: n }, () => pick(random)).join(' ')}.`;
}
