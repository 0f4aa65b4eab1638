/** Baseline (b): plain Koa with @koa/router and one route, the yardstick the kernel is held to. */
import http from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { serveAsChild } from './child-protocol.js';
import { healthBodySource } from './health-body.js';
import { closeServer, listenLoopback } from './listen.js';

const health = healthBodySource();
const app = new Koa();
// The kernel's app settings, so only the middleware stack differs.
app.proxy = false;
app.silent = true;
const router = new Router();
router.get('/api/health', (ctx) => {
  ctx.body = health();
});
app.use(router.routes());

const server = http.createServer(app.callback());
const port = await listenLoopback(server);
serveAsChild(port, () => closeServer(server));
