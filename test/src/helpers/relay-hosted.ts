/**
 * Helpers of the hosted-lane tests: a relay kernel whose accounts point at upstreams, calls through
 * its HTTP front door (fetch on a real socket), SSE frames split out of a body, and the relay's
 * traffic records read back from its log files.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin } from '@keel/plugin-relay';
import { OPEN_GATE, relayTokenOf } from './relay-gate.js';

export interface RelayKernel {
  kernel: TestKernel;
  url: string;
  token: string;
}

/**
 * A relay with one hosted account per `{apiKey, baseUrl}`; no retries unless `hosted` says so, and a
 * gate wide enough for a test's burst of calls. The token is the relay's own (its token file).
 */
export async function startRelay(accounts: Array<{ apiKey: string; baseUrl: string; email?: string }>, settings: Record<string, unknown> = {}): Promise<RelayKernel> {
  const { hosted, gate, ...rest } = settings as { hosted?: Record<string, unknown>; gate?: Record<string, unknown> };
  const kernel = await createTestKernel({
    plugins: [{
      plugin: relayPlugin,
      config: {
        hosted: { accounts: accounts.map((a, i) => ({ email: a.email ?? `acct${i}@example.com`, baseUrl: a.baseUrl, apiKey: a.apiKey })), retryAttempts: 0, ...hosted },
        gate: { ...OPEN_GATE, ...gate },
        ...rest,
      },
    }],
  });
  const { url } = await kernel.listen();
  // RELAY_TOKEN in the environment wins over the token file (a test may set it).
  return { kernel, url, token: process.env.RELAY_TOKEN || relayTokenOf(kernel) };
}

export interface RelayAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}

/** POSTs `body` (an object, or raw text) to the relay's `/v1<path>` and reads the whole answer. */
export async function post(relay: RelayKernel, route: string, body: unknown, headers: Record<string, string> = {}): Promise<RelayAnswer> {
  const res = await fetch(`${relay.url}/v1${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${relay.token}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // a stream
  }
  return { status: res.status, headers: res.headers, text, json };
}

export interface Frame {
  event?: string;
  data: string;
}

/** The SSE frames of a body (comments skipped). */
export function framesOf(text: string): Frame[] {
  const frames: Frame[] = [];
  for (const block of text.split(/\n\n/)) {
    const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
    if (!lines.length) continue;
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    frames.push(event === undefined ? { data } : { event, data });
  }
  return frames;
}

/** The records of a log file's text. The relay appends while a test reads: only lines it finished
 *  (ended by a newline) are records yet. */
export function finishedRecords(text: string): Array<Record<string, unknown>> {
  const lines = text.split('\n');
  lines.pop();
  return lines.filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Every traffic record the relay wrote so far. */
export async function trafficRecords(relay: RelayKernel): Promise<Array<Record<string, unknown>>> {
  const root = path.join(relay.kernel.dataDir, 'plugins', 'relay', 'logs');
  const records: Array<Record<string, unknown>> = [];
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.name.endsWith('.log')) {
        records.push(...finishedRecords(await readFile(full, 'utf8')));
      }
    }
  };
  await walk(root);
  return records;
}
