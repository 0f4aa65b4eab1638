/**
 * `GET /api/gateway/host/status` and `GET /api/gateway/processes` in one process, through the HTTP
 * API: what they report, admin only (403 for another account, 401 without a valid token), no secret
 * in either answer, the data directory's size summary and its bound, this process's worker pools and
 * heartbeat file, and heartbeat files that are not what a Keel process writes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount } from './helpers/accounts.js';
import { tempDir } from './helpers/paths.js';

interface ProcessRow {
  id: string; pid: number; name: string; mode: string; hostname: string; kernel_version: string; started_at: string;
  last_heartbeat_at: string; heartbeat_age_s: number; alive: boolean; dead_reason: string | null; current: boolean;
  worker_pools: Array<{ name: string; threads: number }>;
}
interface ProcessesBody {
  processes: ProcessRow[];
  worker_pools: Array<{ name: string; threads: number; min_threads: number; max_threads: number; queue: number; completed: number }>;
  heartbeat_interval_s: number;
  stale_after_s: number;
}
interface StatusBody {
  hostname: string; platform: string; arch: string; os_release: string;
  versions: Record<string, string>;
  process: { id: string; pid: number; name: string; mode: string; started_at: string; uptime_s: number; memory: Record<string, number> };
  system: { uptime_s: number; cpus: number; load_average: number[]; memory: { total_bytes: number; free_bytes: number } };
  data_dir: { path: string; disk: { total_bytes: number; free_bytes: number } | null; usage: { bytes: number; files: number; folders: Array<{ name: string; bytes: number; files: number }>; complete: boolean; measured_at: string } };
}

/** An environment value that must never come back from a host route. */
const PLANTED_SECRET = 'host-probe-secret-7f3a9c21d4';

describe('GET /api/gateway/host/status and /processes (one process)', function () {
  this.timeout(120_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  let kernel: TestKernel;
  let userToken: string;
  before(async () => {
    process.env.KEEL_HOST_PROBE_SECRET = PLANTED_SECRET;
    kernel = await createTestKernel({ plugins: [ledgerPlugin], dataDir, config: { server: { hostStatus: { dataScanCacheMs: 0 } } } });
    userToken = await createAccount(kernel, 'alice');
  });
  after(async () => {
    delete process.env.KEEL_HOST_PROBE_SECRET;
    await kernel?.stop();
    tmp.remove();
  });

  const get = <T>(url: string, token = kernel.adminToken) => kernel.inject({ url, token }).then((res) => {
    expect(res.statusCode, res.body).to.equal(200);
    return { body: res.json<T>(), text: res.body };
  });

  it('host/status names this machine and process, its versions, memory and load, and the data directory\'s disk and size', async () => {
    const { body } = await get<StatusBody>('/api/gateway/host/status');
    expect(body.hostname).to.equal(os.hostname());
    expect(body).to.include({ platform: process.platform, arch: process.arch, os_release: os.release() });
    expect(body.versions.node).to.equal(process.version);
    expect(body.versions.keel).to.match(/^\d+\.\d+\.\d+/);
    expect(body.process).to.include({ pid: process.pid, name: 'server', mode: 'test' });
    expect(body.process.memory.rss_bytes).to.be.above(0);
    expect(body.system.cpus).to.be.at.least(1);
    expect(body.system.load_average).to.have.length(3);
    expect(body.system.memory.total_bytes).to.be.above(body.system.memory.free_bytes);
    expect(body.data_dir.path).to.equal(dataDir);
    expect(body.data_dir.disk!.free_bytes).to.be.above(0);
    expect(body.data_dir.disk!.total_bytes).to.be.at.least(body.data_dir.disk!.free_bytes);
    // LMDB lives under db/: the summary counts it, and the top-level folders add up to the total.
    const usage = body.data_dir.usage;
    expect(usage.complete).to.equal(true);
    expect(usage.folders.find((f) => f.name === 'db')!.bytes).to.be.above(0);
    expect(usage.folders.reduce((sum, f) => sum + f.bytes, 0)).to.equal(usage.bytes);
    // The process in host/status is the current one in /processes.
    const { body: listing } = await get<ProcessesBody>('/api/gateway/processes');
    expect(listing.processes.find((p) => p.current)!.id).to.equal(body.process.id);
  });

  it('host/status measures what is written into the data directory (walked again once the cache has expired)', async () => {
    mkdirSync(path.join(dataDir, 'bulk'));
    writeFileSync(path.join(dataDir, 'bulk', 'one.bin'), Buffer.alloc(1024 * 1024, 1));
    writeFileSync(path.join(dataDir, 'bulk', 'two.bin'), Buffer.alloc(1024 * 1024, 2));
    // A link to the root of the file system is counted as one entry, never followed.
    symlinkSync('/', path.join(dataDir, 'bulk', 'root-link'));
    const { body } = await get<StatusBody>('/api/gateway/host/status');
    const bulk = body.data_dir.usage.folders.find((f) => f.name === 'bulk')!;
    expect(bulk.files).to.equal(3);
    expect(bulk.bytes).to.be.at.least(2 * 1024 * 1024).and.below(3 * 1024 * 1024);
    expect(body.data_dir.usage.complete).to.equal(true);
  });

  it('/processes lists this process alive and current, with its heartbeat file (owner-only, no secret) and its worker pools', async () => {
    const { body } = await get<ProcessesBody>('/api/gateway/processes');
    const self = body.processes[0]!;
    expect(self).to.include({ current: true, alive: true, dead_reason: null, pid: process.pid, name: 'server', mode: 'test', hostname: os.hostname() });
    expect(Date.parse(self.last_heartbeat_at)).to.be.at.least(Date.parse(self.started_at));
    expect(body.heartbeat_interval_s).to.equal(5);
    expect(body.stale_after_s).to.equal(30);
    // The ledger plugin keeps a read pool with one thread.
    const ledgerPool = body.worker_pools.find((p) => p.name === 'ledger:ledger-read')!;
    expect(ledgerPool).to.include({ min_threads: 1, max_threads: 1, queue: 0 });
    expect(ledgerPool.threads).to.equal(1);

    const dir = path.join(dataDir, 'host', 'processes');
    expect(statSync(dir).mode & 0o777).to.equal(0o700);
    const file = path.join(dir, `${self.id}.json`);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).to.not.contain(kernel.adminToken).and.not.contain(PLANTED_SECRET);
    const record = JSON.parse(text) as { worker_pools: unknown[] };
    expect(Object.keys(record).sort()).to.deep.equal(['heartbeat_at', 'hostname', 'id', 'kernel_version', 'mode', 'name', 'pid', 'started_at', 'worker_pools']);
    // The row of the process answering shows its pools now, as the top-level list does.
    expect(self.worker_pools).to.deep.equal(body.worker_pools);
  });

  it('neither answer carries a token, the environment or the command line, whatever the query asks', async () => {
    for (const url of ['/api/gateway/host/status', '/api/gateway/processes', '/api/gateway/host/status?env=1&verbose=true', '/api/gateway/processes?include=env,argv']) {
      const { text } = await get<unknown>(url);
      expect(text, url).to.not.contain(kernel.adminToken).and.not.contain(userToken).and.not.contain(PLANTED_SECRET);
      expect(text, url).to.not.match(/"(env|argv|execArgv|command_line|cmdline)"/);
      for (const arg of process.argv.slice(2)) expect(text, url).to.not.contain(`"${arg}"`);
    }
  });

  it('both routes are in /openapi.json, admin routes with the bearer scheme and their response schemas', async () => {
    const doc = (await kernel.inject({ url: '/openapi.json' })).json<{ paths: Record<string, { get?: { security: unknown[]; tags: string[]; responses: Record<string, { content: Record<string, { schema: { required: string[] } }> }> } }> }>();
    for (const [url, field] of [['/api/gateway/host/status', 'data_dir'], ['/api/gateway/processes', 'worker_pools']] as const) {
      const op = doc.paths[url]!.get!;
      expect(op.security, url).to.deep.equal([{ bearerAuth: [] }]);
      expect(op.tags, url).to.deep.equal(['host']);
      expect(op.responses['200']!.content['application/json']!.schema.required, url).to.include(field);
    }
  });

  it('answers 403 to an account that is not an admin, and 401 without a token or with a wrong one', async () => {
    for (const url of ['/api/gateway/host/status', '/api/gateway/processes']) {
      const asUser = await kernel.inject({ url, token: userToken });
      expect(asUser.statusCode, url).to.equal(403);
      expect(asUser.json<{ detail: unknown }>().detail).to.be.a('string');
      expect((await kernel.inject({ url })).statusCode, url).to.equal(401);
      expect((await kernel.inject({ url, token: 'keel_not-a-real-token' })).statusCode, url).to.equal(401);
      // Path tricks reach the same guarded route, or nothing.
      for (const variant of [url.toUpperCase(), `${url}/`, url.replace('/api/gateway/', '/api/gateway//'), url.replace('/api/gateway/', '/api/gateway/%2e/')]) {
        const res = await kernel.inject({ url: variant, token: userToken });
        expect([403, 404], variant).to.include(res.statusCode);
        const anonymous = await kernel.inject({ url: variant });
        expect(anonymous.statusCode, variant).to.equal(401);
      }
    }
  });

  it('ignores heartbeat files Keel does not write, shows a stale or vanished process dead, and sweeps one dead long enough', async () => {
    const dir = path.join(dataDir, 'host', 'processes');
    const now = Date.now();
    const record = (id: string, pid: number, heartbeatAgoMs: number) => ({
      id, pid, name: id.split('-')[0], mode: 'headless', hostname: os.hostname(), kernel_version: '0.1.0',
      started_at: new Date(now - heartbeatAgoMs - 60_000).toISOString(), heartbeat_at: new Date(now - heartbeatAgoMs).toISOString(),
    });
    const plant = (id: string, value: unknown) => writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(value));
    // A pid no process has any more: one that ran and exited.
    const gonePid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());

    // pid 0 and -1 would make kill(pid, 0) succeed for the whole process group: such a file is no heartbeat.
    plant('group-0-00000000', record('group-0-00000000', 0, 0));
    plant('all-1-00000001', { ...record('all-1-00000001', 1, 0), pid: -1 });
    // A file whose id is not its name, and a link to a heartbeat elsewhere, are not listed either.
    plant('named-42-0000000a', record('other-42-0000000a', process.pid, 0));
    const outside = path.join(tmp.dir, 'outside-7-0000000b.json');
    writeFileSync(outside, JSON.stringify(record('outside-7-0000000b', process.pid, 0)));
    symlinkSync(outside, path.join(dir, 'outside-7-0000000b.json'));
    writeFileSync(path.join(dir, 'huge-8-0000000c.json'), JSON.stringify({ ...record('huge-8-0000000c', process.pid, 0), pad: 'x'.repeat(64 * 1024) }));
    writeFileSync(path.join(dir, 'broken-9-0000000d.json'), '{"id": "broken-9');
    // Fields beyond the format (an environment tucked into a pool) or a mode no kernel has: not a heartbeat.
    const pool = { name: 'x:y', threads: 1, min_threads: 0, max_threads: 1, queue: 0, completed: 0 };
    plant('padded-10-00000011', { ...record('padded-10-00000011', process.pid, 0), worker_pools: [{ ...pool, env: { KEEL_ADMIN_TOKEN: PLANTED_SECRET } }] });
    plant('odd-11-00000012', { ...record('odd-11-00000012', process.pid, 0), mode: 'root' });
    // Another kernel's pools are shown as of its last heartbeat.
    plant('runner-126-00000013', { ...record('runner-126-00000013', process.pid, 0), worker_pools: [pool] });
    // Dead: a heartbeat older than staleAfterMs, and a fresh one of a process that is gone.
    plant('runner-123-0000000e', record('runner-123-0000000e', gonePid, 45_000));
    plant('runner-124-0000000f', record('runner-124-0000000f', gonePid, 0));
    // Dead longer than sweepAfterMs (an hour): removed.
    plant('runner-125-00000010', record('runner-125-00000010', gonePid, 2 * 3_600_000));

    const { body } = await get<ProcessesBody>('/api/gateway/processes');
    const byId = new Map(body.processes.map((p) => [p.id, p]));
    for (const id of ['group-0-00000000', 'all-1-00000001', 'named-42-0000000a', 'other-42-0000000a', 'outside-7-0000000b', 'huge-8-0000000c', 'broken-9-0000000d', 'runner-125-00000010', 'padded-10-00000011', 'odd-11-00000012']) {
      expect(byId.has(id), id).to.equal(false);
    }
    expect(byId.get('runner-123-0000000e')).to.include({ alive: false, dead_reason: 'heartbeat_stale', pid: gonePid, name: 'runner' });
    expect(byId.get('runner-124-0000000f')).to.include({ alive: false, dead_reason: 'process_gone', pid: gonePid });
    expect(byId.get('runner-126-00000013')).to.deep.include({ alive: true, worker_pools: [pool] });
    expect(JSON.stringify(body)).to.not.contain(PLANTED_SECRET);
    expect(body.processes.filter((p) => p.alive).map((p) => p.id)).to.deep.equal([body.processes[0]!.id, 'runner-126-00000013']);
    const left = readdirSync(dir);
    expect(left).to.not.include('runner-125-00000010.json');
    // The link was left alone (never followed, never removed before it is old), and so was what it points to.
    expect(left).to.include('outside-7-0000000b.json');
    expect(existsSync(outside)).to.equal(true);
  });
});

describe('this process\'s heartbeat file', function () {
  this.timeout(60_000);
  const tmp = tempDir();
  after(() => tmp.remove());

  it('is rewritten every heartbeatIntervalMs and removed when the kernel stops cleanly', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const kernel = await createTestKernel({ dataDir, config: { server: { processes: { heartbeatIntervalMs: 200, staleAfterMs: 10_000 } } } });
    const dir = path.join(dataDir, 'host', 'processes');
    const [file] = readdirSync(dir);
    const beat = () => (JSON.parse(readFileSync(path.join(dir, file!), 'utf8')) as { heartbeat_at: string }).heartbeat_at;
    const first = beat();
    const { until } = await import('./helpers/until.js');
    await until(beat, (at) => at > first, 30_000);
    await kernel.stop();
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('does not keep a process from serving when its heartbeat cannot be written; the listing still shows it', async () => {
    const dataDir = path.join(tmp.dir, 'blocked');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(path.join(dataDir, 'host'), 'a file where the host folder goes');
    const kernel = await createTestKernel({ dataDir });
    try {
      const res = await kernel.inject({ url: '/api/gateway/processes', token: kernel.adminToken });
      expect(res.statusCode, res.body).to.equal(200);
      expect(res.json<ProcessesBody>().processes.map((p) => ({ pid: p.pid, current: p.current, alive: p.alive }))).to.deep.equal([{ pid: process.pid, current: true, alive: true }]);
    } finally {
      await kernel.stop();
    }
  });

  it('refuses a staleAfterMs that does not exceed heartbeatIntervalMs, naming both settings', async () => {
    let error: unknown;
    try {
      await createTestKernel({ config: { server: { processes: { heartbeatIntervalMs: 5_000, staleAfterMs: 5_000 } } } });
    } catch (err) {
      error = err;
    }
    expect(String((error as Error)?.message)).to.contain('server.processes.staleAfterMs (5000) must exceed server.processes.heartbeatIntervalMs (5000)');
  });
});

describe('the data directory size summary bound', function () {
  this.timeout(60_000);
  let kernel: TestKernel;
  before(async () => {
    kernel = await createTestKernel({ config: { server: { hostStatus: { dataScanMaxEntries: 3, dataScanCacheMs: 60_000 } } } });
  });
  after(() => kernel.stop());

  it('stops at dataScanMaxEntries and says the figures are incomplete; within dataScanCacheMs the same summary is reused', async () => {
    const first = (await kernel.inject({ url: '/api/gateway/host/status', token: kernel.adminToken })).json<StatusBody>().data_dir.usage;
    expect(first.complete).to.equal(false);
    expect(first.files).to.be.at.most(3);
    writeFileSync(path.join(kernel.dataDir, 'late.bin'), Buffer.alloc(4096));
    const second = (await kernel.inject({ url: '/api/gateway/host/status', token: kernel.adminToken })).json<StatusBody>().data_dir.usage;
    expect(second).to.deep.equal(first);
  });
});
