/**
 * The workspace streaming benchmark: `GET /api/gateway/runs/{id}/workspace/content?path=` (the run
 * workspace route, with its policy check, descriptor check, nosniff/CSP headers and Range support)
 * against `fs.createReadStream` piped to a raw `node:http` response, for the same file (256 MiB by
 * default), in the same process, in the same run. Target: the route keeps at least 0.9x the raw
 * throughput. For comparison (no target), the same bytes uploaded as an artifact and read back
 * through `GET /runs/{run_id}/artifacts/{id}/content?access_action=download` (the blob store).
 *
 * Both servers live in this process (a kernel with the gateway plugins, listening on 127.0.0.1, and
 * a bare `http.createServer`); the client is a forked child (download-child.ts) so it never shares
 * their event loop. Each round downloads the file `downloads` times per side, `concurrency` at a
 * time, the sides alternating (which goes first rotates); figures are medians over rounds. The file
 * lives in a real run's workspace folder (a 10-step no-op flow run by the admin).
 */
import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { ForkedChild } from '../common/forked-child.js';
import { contendedCores, fmt, machineLine, median, uncontended, verdictLine, watchOtherLoad } from '../ledger/kit.js';
import { NOOP_FLOW } from '../steps/noop-flow.js';
import { bundleOf } from '../steps/steps-flow.js';
import type { DownloadResult, DownloadTask } from './download-child.js';
import { artifactsSettingsFromEnv, type ArtifactsBenchSettings } from './settings.js';

const CHILD = fileURLToPath(new URL('./download-child.js', import.meta.url));
const TARGET = 0.9;
const FILE = 'stream-bench.bin';

export interface SideRound {
  mibPerSec: number;
  serverCpuMsPerGiB: number;
  otherCores: number;
}

type Side = 'raw' | 'kernel' | 'artifact';

export interface StreamBenchSummary {
  fileMiB: number;
  raw: SideRound[];
  kernel: SideRound[];
  artifact: SideRound[];
  ratio: number;
  artifactRatio: number;
  pass: boolean;
}

/** Uploads the file as an artifact of a session; answers its content URL path. */
async function uploadArtifact(url: string, token: string, file: string): Promise<string> {
  const form = new FormData();
  form.append('session_id', 'stream-bench');
  form.append('file', new Blob([readFileSync(file)], { type: 'application/octet-stream' }), FILE);
  const res = await fetch(`${url}/api/gateway/attachments/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { run_id?: string; artifact?: { artifact_id: string } };
  if (res.status !== 200 || !body.artifact) throw new Error(`the artifact upload answered ${res.status}: ${JSON.stringify(body)}`);
  return `/api/gateway/runs/${body.run_id}/artifacts/${body.artifact.artifact_id}/content?access_action=download`;
}

async function json<T>(url: string, token: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** A run of the admin's, finished, and the real path of its workspace folder. */
async function runWithWorkspace(url: string, token: string): Promise<{ runId: string; root: string }> {
  const form = new FormData();
  form.append('file', new Blob([bundleOf(NOOP_FLOW)], { type: 'application/zip' }), `${NOOP_FLOW.bundleId}.flow`);
  form.append('overwrite', 'true');
  const uploaded = await fetch(`${url}/api/gateway/bundles/upload`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (uploaded.status !== 201) throw new Error(`bundle upload answered ${uploaded.status}: ${await uploaded.text()}`);
  const { run_id: runId } = await json<{ run_id: string }>(`${url}/api/gateway/runs/start`, token, { method: 'POST', body: JSON.stringify({ bundle_id: NOOP_FLOW.bundleId, flow_id: NOOP_FLOW.flowId, input_data: {} }) });
  const info = await json<{ workspace_root: string | null; exists: boolean }>(`${url}/api/gateway/runs/${runId}/workspace`, token);
  if (!info.workspace_root || !path.isAbsolute(info.workspace_root)) throw new Error(`the run has no workspace folder the admin can see: ${JSON.stringify(info)}`);
  return { runId, root: info.workspace_root };
}

function rawServer(file: string): Promise<http.Server> {
  const size = statSync(file).size;
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export async function benchWorkspaceStream(settings: ArtifactsBenchSettings = artifactsSettingsFromEnv()): Promise<StreamBenchSummary> {
  console.log(`workspace streaming: a ${settings.streamMiB} MiB file, ${settings.downloads} downloads per side per round (${settings.concurrency} at a time), ${settings.rounds} rounds`);
  console.log(`  ${machineLine()}`);
  const kernel: TestKernel = await createTestKernel({
    plugins: [inferencePlugin, ledgerPlugin, { plugin: workspacesPlugin, config: { maxAttachmentBytes: (settings.streamMiB + 1) * 2 ** 20 } }, gatewayRunsPlugin, artifactsPlugin],
    config: { server: { watchdog: { enabled: false }, logLevel: 'warn' } },
  });
  const client = new ForkedChild<DownloadTask, DownloadResult>(CHILD, 'the download child');
  let raw: http.Server | null = null;
  try {
    const { url } = await kernel.listen();
    const { runId, root } = await runWithWorkspace(url, kernel.adminToken);
    const file = path.join(root, FILE);
    // Random bytes, written in 16 MiB pieces: nothing compresses or dedupes them on the way.
    const piece = randomBytes(16 * 1024 * 1024);
    writeFileSync(file, Buffer.alloc(0));
    for (let written = 0; written < settings.streamMiB; written += 16) writeFileSync(file, piece.subarray(0, Math.min(16, settings.streamMiB - written) * 1024 * 1024), { flag: 'a' });
    const size = statSync(file).size;
    raw = await rawServer(file);
    const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/${FILE}`;
    const kernelUrl = `${url}/api/gateway/runs/${runId}/workspace/content?path=${FILE}`;
    const artifactUrl = `${url}${await uploadArtifact(url, kernel.adminToken, file)}`;
    const urls: Record<Side, string> = { raw: rawUrl, kernel: kernelUrl, artifact: artifactUrl };

    const sides: Record<Side, SideRound[]> = { raw: [], kernel: [], artifact: [] };
    const measure = async (side: Side): Promise<void> => {
      const watch = watchOtherLoad();
      const cpu = process.cpuUsage();
      const task: DownloadTask = { type: 'download', url: urls[side], token: side === 'raw' ? null : kernel.adminToken, downloads: settings.downloads, concurrency: settings.concurrency };
      const result = await client.ask(task, 'downloaded', 600_000);
      const used = process.cpuUsage(cpu);
      const serverCpuMs = (used.user + used.system) / 1000;
      if (result.statuses.some((s) => s !== 200) || result.bytes !== size * settings.downloads) {
        throw new Error(`${side}: answers ${JSON.stringify([...new Set(result.statuses)])}, ${result.bytes} bytes instead of ${size * settings.downloads}`);
      }
      const gib = result.bytes / 2 ** 30;
      sides[side].push({ mibPerSec: result.bytes / 2 ** 20 / (result.ms / 1000), serverCpuMsPerGiB: serverCpuMs / gib, otherCores: watch.stop(serverCpuMs + result.cpuMs) });
    };
    // One discarded warm-up download per side (page cache, JIT), then the rounds, the first side rotating.
    const all: Side[] = ['raw', 'kernel', 'artifact'];
    for (const side of all) await client.ask({ type: 'download', url: urls[side], token: side === 'raw' ? null : kernel.adminToken, downloads: 1, concurrency: 1 }, 'downloaded', 600_000);
    for (let round = 0; round < settings.rounds; round += 1) {
      for (let i = 0; i < all.length; i += 1) await measure(all[(round + i) % all.length]!);
    }
    // Rounds during which other processes used the cores are left out of the medians when a clean one exists.
    const limit = contendedCores(0.25);
    const mid = (side: Side) => median(uncontended(sides[side], limit).kept.map((r) => r.mibPerSec));
    const ratio = mid('kernel') / mid('raw');
    const summary: StreamBenchSummary = { fileMiB: size / 2 ** 20, raw: sides.raw, kernel: sides.kernel, artifact: sides.artifact, ratio, artifactRatio: mid('artifact') / mid('raw'), pass: ratio >= TARGET };
    console.log(`\n${streamSummaryText(summary)}`);
    return summary;
  } finally {
    await client.stop();
    await new Promise<void>((resolve) => (raw ? raw.close(() => resolve()) : resolve()));
    await kernel.stop();
  }
}

export function streamSummaryText(s: StreamBenchSummary): string {
  const row = (label: string, rounds: SideRound[]) =>
    `| ${label} | ${fmt(median(uncontended(rounds, contendedCores(0.25)).kept.map((r) => r.mibPerSec)), 0)} | ${rounds.map((r) => fmt(r.mibPerSec, 0)).join(' / ')} | ${fmt(median(rounds.map((r) => r.serverCpuMsPerGiB)), 0)} | ${rounds.map((r) => fmt(r.otherCores, 2)).join(' / ')} |`;
  return [
    '| server | MiB/s (median of clean rounds) | per round | server CPU ms per GiB | other load, cores (per round) |',
    '|---|---:|---|---:|---|',
    row('fs.createReadStream → node:http', s.raw),
    row('keel /runs/{id}/workspace/content', s.kernel),
    row('keel /runs/{id}/artifacts/{aid}/content (no target)', s.artifact),
    '',
    `artifact content / raw: ${fmt(s.artifactRatio, 2)}x`,
    verdictLine({ label: `workspace content throughput >= ${TARGET}x raw`, pass: s.pass, detail: `${fmt(s.ratio, 2)}x ${s.pass ? '>=' : '<'} ${TARGET}x` }),
  ].join('\n');
}
