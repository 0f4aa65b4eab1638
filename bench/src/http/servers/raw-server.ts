/** Baseline (a): bare `node:http`, the ceiling for one Node process answering this body. */
import http from 'node:http';
import { serveAsChild } from './child-protocol.js';
import { healthBodySource } from './health-body.js';
import { closeServer, listenLoopback } from './listen.js';

const health = healthBodySource();

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/api/health') {
    const json = JSON.stringify(health());
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
    return;
  }
  res.writeHead(404).end();
});

const port = await listenLoopback(server);
serveAsChild(port, () => closeServer(server));
