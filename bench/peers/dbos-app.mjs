/**
 * The DBOS side of bench/peers: two workflows behind a small node:http server (DBOS is a library, so
 * something must take the request; this is the thinnest such server). `POST /recorded` or
 * `POST /inMemory` runs the workflow and answers with its result once it has finished.
 *
 * - recorded: a workflow of 10 `DBOS.runStep` steps, each checkpointed in PostgreSQL.
 * - inMemory: a workflow computing the same 10 steps with no step (only the workflow is recorded).
 *
 * The system database is `DBOS_SYSTEM_DATABASE_URL` (the harness's throwaway PostgreSQL cluster).
 * Listens on argv[2] (0 = any) and prints one JSON line `{"ready": <port>}` once listening; exits on SIGTERM.
 */
import http from 'node:http';
import { DBOS } from '@dbos-inc/dbos-sdk';

const STEPS = 10;

const recorded = DBOS.registerWorkflow(async () => {
  let total = 0;
  for (let i = 1; i <= STEPS; i++) total += await DBOS.runStep(async () => i, { name: `step${i}` });
  return { steps: STEPS, total };
}, { name: 'recorded' });

const inMemory = DBOS.registerWorkflow(async () => {
  let total = 0;
  for (let i = 1; i <= STEPS; i++) total += await Promise.resolve(i);
  return { steps: STEPS, total };
}, { name: 'inMemory' });

const WORKFLOWS = { '/recorded': recorded, '/inMemory': inMemory };

const systemDatabaseUrl = process.env.DBOS_SYSTEM_DATABASE_URL;
if (!systemDatabaseUrl) throw new Error('DBOS_SYSTEM_DATABASE_URL is not set: this app runs as a child of bench/peers.');
DBOS.setConfig({ name: 'keel-bench-peers', systemDatabaseUrl, logLevel: 'warn' });
await DBOS.launch();

const server = http.createServer((req, res) => {
  const workflow = req.method === 'POST' ? WORKFLOWS[req.url] : undefined;
  req.resume();
  if (!workflow) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"POST /recorded or /inMemory"}');
    return;
  }
  req.on('end', () => {
    workflow().then(
      (result) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
      (err) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) })),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ ready: server.address().port })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  DBOS.shutdown().finally(() => process.exit(0));
});
