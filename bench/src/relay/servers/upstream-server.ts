/**
 * The raw upstream, run as a child: a minimal OpenAI-shaped `node:http` server. `GET /v1/models`
 * lists one model; `POST /v1/chat/completions` answers a JSON chat completion, or with `stream:
 * true` a short SSE stream (a role chunk, the content deltas, a finish chunk, a usage chunk when
 * `stream_options.include_usage`, `[DONE]`), each event its own write as a real server sends them.
 * It checks the bearer key, as any real upstream would.
 */
import http from 'node:http';
import { closeServer, listenLoopback } from '../../http/servers/listen.js';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { BENCH_MODEL, CHILD_ENV } from '../settings.js';

const key = process.env[CHILD_ENV.upstreamKey];
if (!key) throw new Error(`${CHILD_ENV.upstreamKey} is not set: this script runs as a child of the relay benchmark.`);
const deltas = Number(process.env[CHILD_ENV.deltas] ?? 8);
const words = Array.from({ length: deltas }, (_, i) => (i ? ` word${i}` : 'word0'));
const expectedAuth = `Bearer ${key}`;
const created = Math.floor(Date.now() / 1000);
let served = 0;

const modelsBody = JSON.stringify({ object: 'list', data: [{ id: BENCH_MODEL, object: 'model', created, owned_by: 'bench' }] });

function sendJson(res: http.ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: BENCH_MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function usage(): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  return { prompt_tokens: 9, completion_tokens: deltas, total_tokens: 9 + deltas };
}

function answerChat(body: Record<string, unknown>, res: http.ServerResponse): void {
  const id = `chatcmpl-${++served}`;
  if (body.stream !== true) {
    sendJson(res, 200, JSON.stringify({
      id, object: 'chat.completion', created, model: BENCH_MODEL,
      choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }],
      usage: usage(),
    }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk(id, { role: 'assistant', content: '' }, null));
  for (const word of words) res.write(chunk(id, { content: word }, null));
  res.write(chunk(id, {}, 'stop'));
  if ((body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: BENCH_MODEL, choices: [], usage: usage() })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

const server = http.createServer((req, res) => {
  if (req.headers.authorization !== expectedAuth) {
    sendJson(res, 401, JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key', param: null } }));
    req.resume();
    return;
  }
  if (req.method === 'GET' && req.url === '/v1/models') {
    sendJson(res, 200, modelsBody);
    return;
  }
  if (req.method === 'POST' && req.url === '/v1/chat/completions') {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      } catch {
        sendJson(res, 400, JSON.stringify({ error: { message: 'The body is not JSON.', type: 'invalid_request_error', code: null, param: null } }));
        return;
      }
      answerChat(body, res);
    });
    return;
  }
  sendJson(res, 404, JSON.stringify({ error: { message: `No route ${req.method} ${req.url}.`, type: 'invalid_request_error', code: 'not_found', param: null } }));
  req.resume();
});

// How many connections the sides opened: a relay that does not keep its upstream connections alive shows here.
let connections = 0;
server.on('connection', () => connections++);

const port = await listenLoopback(server);
serveAsChild(port, async () => {
  console.log(`  upstream: ${served} chat calls over ${connections} connections`);
  await closeServer(server);
});
