/**
 * `GET /api/gateway/processes` with real processes on one data directory: `keel serve --no-runner`,
 * a separate `keel runner` (alive, then dead once killed, then swept), a runner that stops cleanly
 * (gone), and a one-shot command (listed by its command's name, never its arguments).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { spawnKeel, startRunner, startServer, type KeelProcess, type ServerProcess } from './helpers/cli.js';
import { until } from './helpers/gateway-runs.js';
import { fixturesDir, tempDir } from './helpers/paths.js';

interface ProcessRow { id: string; pid: number; name: string; mode: string; alive: boolean; dead_reason: string | null; current: boolean; worker_pools: Array<{ name: string; threads: number }> }

describe('GET /api/gateway/processes with a separate keel runner and a one-shot command', function () {
  this.timeout(300_000);
  const tmp = tempDir();
  const dataDir = path.join(tmp.dir, 'data');
  const configFile = path.join(tmp.dir, 'keel.json');
  const children: KeelProcess[] = [];
  let server: ServerProcess | undefined;
  let token = '';

  /** One config for every process; `processes` are the server's heartbeat settings. */
  const configure = (processes: Record<string, number> = {}) => writeFileSync(configFile, JSON.stringify({
    server: { port: 0, logLevel: 'warn', processes: { heartbeatIntervalMs: 500, staleAfterMs: 20_000, ...processes } },
    plugins: [
      { use: '@keel/plugin-inference' }, { use: '@keel/plugin-ledger' }, { use: '@keel/plugin-workspaces' }, { use: '@keel/plugin-gateway-runs' },
      { use: path.join(fixturesDir, 'cli-greeter-plugin.js') }, { use: path.join(fixturesDir, 'cli-command-plugin.js') },
    ],
  }));
  const startKeel = async () => {
    server = await startServer(['--config', configFile, '--data-dir', dataDir, '--no-runner']);
    token = readFileSync(path.join(dataDir, 'auth', 'admin.token'), 'utf8').trim();
  };
  const listing = async () => {
    const res = await fetch(`${server!.url}/api/gateway/processes`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    expect(res.status, text).to.equal(200);
    return { rows: (JSON.parse(text) as { processes: ProcessRow[] }).processes, text };
  };
  const rowOf = async (pid: number) => (await listing()).rows.find((r) => r.pid === pid);

  before(async () => {
    configure();
    await startKeel();
  });
  after(async () => {
    for (const child of children) await child.stop('SIGKILL');
    await server?.stop('SIGKILL');
    tmp.remove();
  });

  it('lists the server (current) and a separate keel runner alive; once the runner is killed it is shown dead', async () => {
    const runner = await startRunner(['--config', configFile, '--data-dir', dataDir]);
    children.push(runner);
    const pid = runner.child.pid!;
    // Listed alive with the pools its plugins made (a heartbeat written before they started has none).
    const alive = await until(() => rowOf(pid), { ok: (r) => r?.alive === true && r.worker_pools.some((p) => p.name === 'ledger:ledger-read'), deadline: 60_000, what: 'the runner to be listed alive with its pools' });
    expect(alive).to.include({ name: 'runner', mode: 'headless', current: false, dead_reason: null });
    // The runner's own pools, as of its last heartbeat (the ledger keeps one read thread).
    expect(alive!.worker_pools.find((p) => p.name === 'ledger:ledger-read')).to.include({ threads: 1 });
    const self = (await listing()).rows[0]!;
    expect(self).to.include({ current: true, alive: true, name: 'server', mode: 'server', pid: server!.child.pid });

    await runner.stop('SIGKILL');
    const dead = await until(() => rowOf(pid), { ok: (r) => r?.alive === false, deadline: 60_000, what: 'the killed runner to be shown dead' });
    expect(dead).to.include({ id: alive!.id, name: 'runner', dead_reason: 'process_gone' });
  });

  it('a runner that stops cleanly (SIGTERM) removes itself from the list', async () => {
    const runner = await startRunner(['--config', configFile, '--data-dir', dataDir]);
    children.push(runner);
    const pid = runner.child.pid!;
    await until(() => rowOf(pid), { ok: (r) => r?.alive === true, deadline: 60_000, what: 'the second runner to be listed alive' });
    expect(await runner.stop('SIGTERM')).to.equal(0);
    expect(await until(() => rowOf(pid), { ok: (r) => r === undefined, deadline: 30_000, what: 'the stopped runner to leave the list' })).to.equal(undefined);
  });

  it('lists a one-shot command by its name, never its arguments, and drops it once it returns', async () => {
    const release = path.join(tmp.dir, 'release');
    const secretArg = '--password=hunter2-do-not-show';
    const command = spawnKeel(['probe', 'hold', release, secretArg, '--config', configFile, '--data-dir', dataDir]);
    children.push(command);
    await command.waitFor(/held/);
    const pid = command.child.pid!;
    const row = await until(() => rowOf(pid), { ok: (r) => r?.alive === true, deadline: 60_000, what: 'the one-shot command to be listed' });
    expect(row).to.include({ name: 'probe', mode: 'cli', current: false });
    const { text } = await listing();
    expect(text).to.not.contain('hunter2').and.not.contain(release).and.not.contain(configFile).and.not.contain(token);
    writeFileSync(release, '');
    expect(await command.exited).to.equal(0);
    expect(await rowOf(pid)).to.equal(undefined);
  });

  it('sweeps a dead process once its last heartbeat is older than sweepAfterMs (a server restarted with a short sweep)', async () => {
    const dead = (await listing()).rows.filter((r) => !r.alive);
    expect(dead.map((r) => r.name)).to.deep.equal(['runner']);
    await server!.stop('SIGTERM');
    configure({ sweepAfterMs: 1_000 });
    await startKeel();
    const { rows } = await listing();
    expect(rows.map((r) => r.id)).to.not.include(dead[0]!.id);
    expect(rows.every((r) => r.alive)).to.equal(true);
  });
});
