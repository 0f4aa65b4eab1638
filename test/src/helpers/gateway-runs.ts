/**
 * Helpers for tests of gateway runs: the run and ledger-item shapes the gateway serves, the
 * run routes through a test kernel's `inject`, and a real `keel serve` process on a temp data dir
 * that can be killed (-9) and restarted on the same data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { startRunner, startServer, type KeelProcess, type ServerProcess } from './cli.js';
import { bundle, multipart } from './flow-builder.js';
import { tempDir } from './paths.js';

/** A ledger record as `GET /api/gateway/runs/{id}/ledger` serves it (the fields these tests read). */
export interface LedgerItem {
  cursor: number;
  step_id: string;
  node_id: string;
  status: string;
  attempt: number;
  idempotency_key: string | null;
  effect: { type: string; payload: Record<string, unknown> } | null;
  result: Record<string, unknown> | null;
  error: string | null;
  started_at: string;
  ended_at: string | null;
}

/** A run as `GET /api/gateway/runs/{id}` serves it (the fields these tests read). */
export interface RunRecord {
  run_id: string;
  workflow_id: string;
  status: string;
  parent_run_id: string | null;
  error: string | null;
  output: Record<string, unknown> | null;
  waiting: { reason: string; until?: string | null; wait_key?: string | null } | null;
}

/** The polling helper, re-exported here for the tests that import it from this module. */
export { until } from './until.js';

/** The gateway's bundle and run routes through `inject`, as the admin; `kernel` is read at each call (it is made in `before`). */
export function gatewayRuns(kernel: () => TestKernel) {
  const get = async <T>(url: string) => {
    const k = kernel();
    return (await k.inject({ url, token: k.adminToken })).json<T>();
  };
  return {
    /** Uploads `flow` as the bundle `id`@1.0.0 (201). */
    uploadBundle: async (id: string, flow: Parameters<typeof bundle>[2]) => {
      const k = kernel();
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
      expect((await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: k.adminToken, payload: body.payload, headers: body.headers })).statusCode).to.equal(201);
    },
    /** Starts a run of `bundleId` on `runtime` (`{provider, model}`); returns its id. */
    startRun: async (bundleId: string, runtime: Record<string, unknown>) => {
      const k = kernel();
      return (await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: { _runtime: runtime } } })).json<{ run_id: string }>().run_id;
    },
    getRun: (id: string) => get<RunRecord>(`/api/gateway/runs/${id}`),
    ledger: async (id: string) => (await get<{ items: LedgerItem[] }>(`/api/gateway/runs/${id}/ledger?limit=2000`)).items,
    /** Sends a command (200) and answers its acknowledgement. */
    command: async (runId: string, type: string, payload: Record<string, unknown> = {}) => {
      const k = kernel();
      const res = await k.inject({ method: 'POST', url: '/api/gateway/commands', token: k.adminToken, payload: { command_id: crypto.randomUUID(), run_id: runId, type, payload } });
      expect(res.statusCode).to.equal(200);
      return res.json<{ accepted: boolean; duplicate: boolean; seq: number }>();
    },
  };
}

/**
 * A real `keel serve` process on a temp data dir, as the admin: started, killed with SIGKILL and
 * restarted on the same data; started with `--no-runner`, with `keel runner` processes beside it.
 */
export class ServedKeel {
  private readonly tmp = tempDir();
  /** The process's data directory (inspect or edit it only while the process is stopped). */
  readonly dataDir = path.join(this.tmp.dir, 'data');
  /** The config file both processes read (written by `configure`). */
  readonly configFile = path.join(this.tmp.dir, 'keel.json');
  private server: ServerProcess | undefined;
  private runnerProcess: KeelProcess | undefined;
  private flags: string[] = [];
  private token = '';

  /** Writes the config the process runs: these `plugins` entries, a free port, warnings only (read at each start). */
  configure(plugins: unknown[]): void {
    writeFileSync(this.configFile, JSON.stringify({ server: { port: 0, logLevel: 'warn' }, plugins }));
  }

  /** Starts the server, or a new one on the same data after `stop`, with extra `flags` (`--no-runner`); a fresh data dir gets its admin token here. */
  async start(flags: string[] = this.flags): Promise<void> {
    this.flags = flags;
    this.server = await this.spawn();
    this.token = readFileSync(path.join(this.dataDir, 'auth', 'admin.token'), 'utf8').trim();
  }

  /** Starts `keel runner` on the same config and data (beside a server started with `--no-runner`). */
  async startRunner(): Promise<KeelProcess> {
    this.runnerProcess = await startRunner(['--config', this.configFile, '--data-dir', this.dataDir]);
    return this.runnerProcess;
  }

  /** The running `keel runner`, if one was started. */
  get runner(): KeelProcess | undefined {
    return this.runnerProcess;
  }

  /** The running process's base URL. */
  get url(): string {
    return this.server!.url;
  }

  /** The admin token of the data dir (read at start). */
  get adminToken(): string {
    return this.token;
  }

  /** Stops the server: as Ctrl-C does by default (it closes its data directory cleanly), or with `signal` ('SIGKILL' for a crash). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    await this.server?.stop(signal);
    this.server = undefined;
  }

  /** kill -9, then a new server process on the same data, with the same flags. */
  async restart(): Promise<void> {
    await this.stop('SIGKILL');
    this.server = await this.spawn();
  }

  /** JSON (or a Buffer sent as is) to the running process. */
  async call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const send = () => fetch(`${this.server!.url}${url}`, { method, headers: { authorization: `Bearer ${this.token}`, ...(body && !Buffer.isBuffer(body) ? { 'content-type': 'application/json' } : {}), ...headers }, body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body) });
    let res: Response;
    try {
      res = await send();
    } catch (err) {
      // A pooled keep-alive connection the server closed while idle (timers run late on a loaded
      // machine) resets on reuse; a GET is safe to send once more on a new connection.
      if (method !== 'GET' || (err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
      res = await send();
    }
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }

  async run(runId: string): Promise<RunRecord> {
    return (await this.call('GET', `/api/gateway/runs/${runId}`)).body as unknown as RunRecord;
  }

  async ledger(runId: string): Promise<LedgerItem[]> {
    return (await this.call('GET', `/api/gateway/runs/${runId}/ledger?limit=2000`)).body.items as LedgerItem[];
  }

  /** Kills the processes (if any) and removes the temp dir. */
  async dispose(): Promise<void> {
    await this.runnerProcess?.stop('SIGKILL');
    await this.server?.stop('SIGKILL');
    this.tmp.remove();
  }

  private spawn(): Promise<ServerProcess> {
    return startServer(['--config', this.configFile, '--data-dir', this.dataDir, ...this.flags]);
  }
}
