/**
 * The baseline, run as a child process: bare `node:http` broadcasting server-sent events. Each
 * event is the bytes keel sends for a ledger record (`event: step`, `id: <cursor>`, the record
 * with its cursor as data, serialised once with the SDK's `encodeSse`), written to every
 * subscriber of the run at the same rate; `done` last, then the streams end. No storage, no
 * auth, no router: the ceiling for one Node process fanning these bytes out.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { encodeSse } from '@keel/plugin-sdk';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { closeServer, listenLoopback } from '../../http/servers/listen.js';
import { wallMs } from '../../ledger/kit.js';
import { RunRecords } from '../../ledger/records.js';
import { publishAtRate, type PublishBody, type PublishResult } from '../publisher.js';
import type { CreatedRun } from '../settings.js';

const subscribers = new Map<string, Set<http.ServerResponse>>();

const server = http.createServer((req, res) => {
  const parts = (req.url ?? '').split('?')[0]!.split('/').filter(Boolean);
  if (req.method === 'POST' && parts.length === 1 && parts[0] === 'runs') {
    const runId = randomUUID();
    subscribers.set(runId, new Set());
    return json(res, 200, { run_id: runId, stream_path: `/runs/${runId}/stream` } satisfies CreatedRun);
  }
  const set = parts[0] === 'runs' && parts[1] ? subscribers.get(parts[1]) : undefined;
  if (req.method === 'GET' && parts.length === 3 && parts[2] === 'stream' && set) {
    // What the SDK's SseStream does with a response: no timeout, no Nagle, headers at once.
    req.socket.setTimeout(0);
    req.socket.setNoDelay(true);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    res.flushHeaders();
    set.add(res);
    res.on('close', () => set.delete(res));
    return;
  }
  if (req.method === 'POST' && parts.length === 3 && parts[2] === 'publish' && set) {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      publish(parts[1]!, set, JSON.parse(raw) as PublishBody).then(
        (result) => json(res, 200, result),
        (err: unknown) => json(res, 500, { error: String(err) }),
      );
    });
    return;
  }
  json(res, 404, { error: 'not found' });
});

async function publish(runId: string, set: Set<http.ServerResponse>, body: PublishBody): Promise<PublishResult> {
  const records = new RunRecords(runId);
  const acks: number[] = [];
  const sent = await publishAtRate(body, (i, stamp) => {
    const cursor = i + 1;
    const frame = encodeSse({ event: 'step', id: cursor, data: { ...records.next(i, { ...stamp }), cursor } });
    acks.push(wallMs());
    for (const res of set) res.write(frame);
  });
  const done = encodeSse({ event: 'done', data: { run_id: runId, cursor: body.count, status: 'terminal' } });
  for (const res of set) res.end(done);
  return { sent, acks };
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const port = await listenLoopback(server);
serveAsChild(port, () => closeServer(server));
