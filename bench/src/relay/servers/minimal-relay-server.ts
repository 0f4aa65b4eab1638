/**
 * The peer baseline, run as a child: the smallest useful relay. A `node:http` server that sends
 * each call to the upstream with `http.request` over a keep-alive agent (the upstream's key in
 * place of the caller's), and pipes the answer back: status, headers and body as they come.
 * No validation, no accounting, no logs: what any relay costs at the least.
 */
import http from 'node:http';
import { closeServer, listenLoopback } from '../../http/servers/listen.js';
import { serveAsChild } from '../../http/servers/child-protocol.js';
import { CHILD_ENV } from '../settings.js';

const base = process.env[CHILD_ENV.upstreamBase];
const key = process.env[CHILD_ENV.upstreamKey];
if (!base || !key) throw new Error(`${CHILD_ENV.upstreamBase} and ${CHILD_ENV.upstreamKey} must be set: this script runs as a child of the relay benchmark.`);
const upstream = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((req, res) => {
  const headers: http.OutgoingHttpHeaders = { authorization: `Bearer ${key}` };
  if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
  if (req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
  const out = http.request({ agent, host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  out.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `upstream: ${err.message}`, type: 'server_error', code: 'upstream_error', param: null } }));
  });
  req.pipe(out);
});

const port = await listenLoopback(server);
serveAsChild(port, () => closeServer(server));
