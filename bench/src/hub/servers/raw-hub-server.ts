/**
 * The baseline, run as a child process: bare `node:http` plus a `ws` WebSocketServer on `/ws`.
 * `POST /messages {body}` gives the message the next seq and writes one frame, serialised once, to
 * every connected socket, then answers with the message. No storage, no auth, no router, no
 * per-viewer work: the floor for one Node process taking posts over HTTP and pushing them out.
 *
 * The frame has the shape and the fields of the hub's `{type:'envelope', envelope}` (with the
 * viewer-specific fields as a non-addressed member sees them), so both servers put about the same
 * bytes on the wire.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { closeServer, listenLoopback } from '../../http/servers/listen.js';
import { RAW_CHANNEL, RAW_SENDER } from '../settings.js';


const sockets = new Set<WebSocket>();
const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
let seq = 0;

const server = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/messages') {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = (JSON.parse(raw) as { body?: unknown }).body;
      } catch {
        return json(res, 422, { detail: 'body is not JSON' });
      }
      if (typeof body !== 'string') return json(res, 422, { detail: 'body must be a string' });
      json(res, 200, broadcast(body));
    });
    return;
  }
  json(res, 404, { detail: 'not found' });
});

server.on('upgrade', (req, socket, head) => {
  if (req.url !== '/ws') return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
  });
});

function broadcast(body: string) {
  const createdAt = Date.now() / 1000;
  const message = {
    id: randomUUID(), channel: RAW_CHANNEL, seq: ++seq, sender: RAW_SENDER, kind: 'message', status: 'fyi', urgency: 'inbox',
    critical: false, downgraded: false, to: [], title: '', body, data: null, reply_to: null, created_at: createdAt, retracted: false, retracted_at: null,
  };
  const envelope = {
    id: message.id, channel: RAW_CHANNEL, seq: message.seq, sender: RAW_SENDER, kind: 'message', status: 'fyi', urgency: 'inbox',
    effective_urgency: 'inbox', escalated: false, downgraded: false, critical: false, to_me: false, addressed: false, from_operator: false,
    reply_to_me: false, title: '', body_bytes: Buffer.byteLength(body), body, data: null, reply_to: null, pending_asks: [],
    your_pending_asks: [], ask_progress: '', declined_asks: [], has_resolved_reply: false, redelivery: false, retracted: false,
    attachments: [], signature: null, verified_by: null, created_at: createdAt,
  };
  // Encoded once for every socket (sent as a text frame).
  const frame = Buffer.from(JSON.stringify({ type: 'envelope', envelope }));
  for (const ws of sockets) ws.send(frame, { binary: false });
  return message;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const port = await listenLoopback(server);
serveAsChild(port, async () => {
  for (const ws of sockets) ws.terminate();
  await closeServer(server);
});
