/**
 * The load client: `node:http` with one keep-alive agent per side (never the global `fetch`, which
 * caps near 5k req/s here). A call is timed from the request until the last byte of the answer;
 * every answer is checked (status 200, a JSON body or a stream ending in `data: [DONE]`), and its
 * `x-relay-overhead-ms` header noted.
 */
import http from 'node:http';
import type { RelayMode } from './settings.js';

export const OVERHEAD_HEADER = 'x-relay-overhead-ms';
const DONE_TAIL = 'data: [DONE]';

export interface Target {
  port: number;
  path: string;
  authorization: string;
  mode: RelayMode;
  body: Buffer;
  agent: http.Agent;
}

export interface CallOutcome {
  ms: number;
  /** Why the answer is not a good one, or null. */
  problem: string | null;
  /** The overhead header's value, or undefined when absent. */
  overhead: string | undefined;
}

export function target(port: number, authorization: string, mode: RelayMode, body: Record<string, unknown>, sockets: number): Target {
  return {
    port,
    path: '/v1/chat/completions',
    authorization,
    mode,
    body: Buffer.from(JSON.stringify(body)),
    agent: new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets }),
  };
}

/** One call; never rejects (a failure is an outcome with a `problem`). `keep` collects the whole body. */
export function call(t: Target, keep?: Buffer[]): Promise<CallOutcome> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.request({
      agent: t.agent, host: '127.0.0.1', port: t.port, method: 'POST', path: t.path,
      headers: { authorization: t.authorization, 'content-type': 'application/json', 'content-length': t.body.length },
    }, (res) => {
      let tail = '';
      res.on('data', (part: Buffer) => {
        keep?.push(part);
        tail = (tail + part.toString('latin1', Math.max(0, part.length - 32))).slice(-32);
      });
      res.on('end', () => {
        const ms = performance.now() - t0;
        const overhead = res.headers[OVERHEAD_HEADER] as string | undefined;
        let problem: string | null = null;
        if (res.statusCode !== 200) problem = `status ${res.statusCode}`;
        else if (t.mode === 'stream' && !tail.trimEnd().endsWith(DONE_TAIL)) problem = `stream did not end with ${DONE_TAIL}`;
        else if (t.mode === 'json' && !String(res.headers['content-type']).startsWith('application/json')) problem = `content-type ${res.headers['content-type']}`;
        resolve({ ms, problem, overhead });
      });
      res.on('error', (err) => resolve({ ms: performance.now() - t0, problem: err.message, overhead: undefined }));
    });
    req.on('error', (err) => resolve({ ms: performance.now() - t0, problem: err.message, overhead: undefined }));
    req.end(t.body);
  });
}

/** The words of the answer, from a whole JSON body or SSE stream: proves a side relays the upstream's content. */
export function answerText(mode: RelayMode, body: string): string {
  if (mode === 'json') {
    const parsed = JSON.parse(body) as { choices?: Array<{ message?: { content?: string } }> };
    return parsed.choices?.[0]?.message?.content ?? '';
  }
  let text = '';
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const event = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
    text += event.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

export interface LoadOutcome {
  calls: number;
  seconds: number;
  failures: number;
  firstProblem: string | null;
  /** Answers without the overhead header. */
  withoutOverhead: number;
  /** Latencies of every call, ms (closed loop: latency under that load). */
  latencies: number[];
}

/** `connections` clients, each with one call in flight, for `seconds`; calls still in flight at the end are awaited and counted. */
export async function closedLoop(t: Target, connections: number, seconds: number): Promise<LoadOutcome> {
  const out: LoadOutcome = { calls: 0, seconds: 0, failures: 0, firstProblem: null, withoutOverhead: 0, latencies: [] };
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  const client = async () => {
    while (performance.now() < end) {
      const r = await call(t);
      out.calls++;
      out.latencies.push(r.ms);
      if (r.overhead === undefined) out.withoutOverhead++;
      if (r.problem) {
        out.failures++;
        out.firstProblem ??= r.problem;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, client));
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}
