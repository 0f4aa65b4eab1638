/**
 * What the relay knows about the local client without generating text: readiness (`<cmd> --version`
 * and `<cmd> auth status --json`, 5 s each) and its models (`<cmd> models --json`). The status route
 * never waits on a subprocess (reference §1.7, §8 item 22): the probe runs synchronously only on
 * the first call that needs it; afterwards a result older than 30 s is refreshed in the background
 * while the cached one is returned. Models are cached for `hosted.modelsCacheTtlSeconds` (0: every
 * call asks), the configured `cli.models` extend the discovered list and are the fallback.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const PROBE_TIMEOUT_MS = 5_000;
export const READINESS_MAX_AGE_MS = 30_000;
/** `models --json` may have to load the client (Keel's own boots a kernel): a longer budget than the readiness probes. */
export const DISCOVERY_TIMEOUT_MS = 30_000;

export interface Readiness {
  cli_installed: boolean;
  cli_version: string | null;
  logged_in: boolean;
  auth_method: string | null;
  api_provider: string | null;
  email: string | null;
  subscription_type: string | null;
  /** Why the client is not ready, when it is not. */
  problem: string | null;
  checked_at: number;
}

export interface ModelDiscovery {
  /** Upstream names (without the `cli:` prefix), discovered then configured, without repeats. */
  names: string[];
  /** The names the client listed itself. */
  discovered: string[];
  source: 'cli_catalog' | 'configured';
  error: string | null;
  fetched_at: number | null;
}

export class CliProbe {
  private readiness: Readiness | null = null;
  private readinessRun: Promise<Readiness> | null = null;
  private discovery: ModelDiscovery | null = null;
  private discoveryRun: Promise<ModelDiscovery> | null = null;
  private readonly running = new Set<ChildProcess>();
  private stopped = false;

  constructor(
    private readonly command: string[],
    private readonly env: NodeJS.ProcessEnv,
    private readonly configuredModels: string[],
    private readonly modelsTtlMs: number,
    private readonly now: () => number,
  ) {}

  /** The cached readiness, refreshed in the background when stale; null before the first probe ended. */
  cachedReadiness(): Readiness | null {
    if (!this.readiness || this.now() - this.readiness.checked_at > READINESS_MAX_AGE_MS) void this.refreshReadiness();
    return this.readiness;
  }

  /** Readiness, waiting only when there is none yet (the first call). */
  async readinessNow(): Promise<Readiness> {
    return this.cachedReadiness() ?? this.refreshReadiness();
  }

  /** The model names, waiting for discovery only when none is cached or the cache expired. */
  async models(refresh = false): Promise<ModelDiscovery> {
    const fresh = this.discovery && this.discovery.fetched_at !== null && this.now() - this.discovery.fetched_at < this.modelsTtlMs;
    if (this.discovery && fresh && !refresh) return this.discovery;
    return this.refreshModels();
  }

  /** The last discovery without starting one (the status route). */
  cachedModels(): ModelDiscovery {
    return this.discovery ?? { names: [...new Set(this.configuredModels)], discovered: [], source: 'configured', error: null, fetched_at: null };
  }

  /** Kills the probes still running and starts no more (the plugin stops). */
  stop(): void {
    this.stopped = true;
    for (const child of this.running) child.kill('SIGKILL');
  }

  private refreshReadiness(): Promise<Readiness> {
    this.readinessRun ??= this.probeReadiness().then((r) => {
      this.readiness = r;
      return r;
    }).finally(() => {
      this.readinessRun = null;
    });
    return this.readinessRun;
  }

  private refreshModels(): Promise<ModelDiscovery> {
    this.discoveryRun ??= this.discoverModels().then((d) => {
      this.discovery = d;
      return d;
    }).finally(() => {
      this.discoveryRun = null;
    });
    return this.discoveryRun;
  }

  private async probeReadiness(): Promise<Readiness> {
    const base: Readiness = { cli_installed: false, cli_version: null, logged_in: false, auth_method: null, api_provider: null, email: null, subscription_type: null, problem: null, checked_at: this.now() };
    try {
      base.cli_version = (await this.run(['--version'])).trim().split('\n')[0]!.slice(0, 200) || null;
      base.cli_installed = true;
    } catch (err) {
      return { ...base, problem: `${this.label()} --version failed: ${(err as Error).message}`, checked_at: this.now() };
    }
    try {
      const status = JSON.parse(await this.run(['auth', 'status', '--json'])) as Record<string, unknown>;
      const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 200) : null);
      base.logged_in = status.loggedIn === true;
      base.auth_method = text(status.authMethod);
      base.api_provider = text(status.apiProvider);
      base.email = text(status.email);
      base.subscription_type = text(status.subscriptionType);
      if (!base.logged_in) base.problem = `${this.label()} is not signed in (auth status says loggedIn is not true).`;
    } catch (err) {
      base.problem = `${this.label()} auth status --json failed: ${(err as Error).message}`;
    }
    return { ...base, checked_at: this.now() };
  }

  private async discoverModels(): Promise<ModelDiscovery> {
    const configured = this.configuredModels;
    try {
      const names = parseModelList(JSON.parse(await this.run(['models', '--json'], DISCOVERY_TIMEOUT_MS)));
      return { names: [...new Set([...names, ...configured])], discovered: names, source: 'cli_catalog', error: null, fetched_at: this.now() };
    } catch (err) {
      // Configured names stay usable when discovery fails; the failure is kept for the status.
      return { names: [...new Set(configured)], discovered: [], source: 'configured', error: `${this.label()} models --json failed: ${(err as Error).message}`, fetched_at: this.now() };
    }
  }

  private label(): string {
    return path.basename(this.command[0]!) + (this.command.length > 1 ? ` ${this.command.slice(1).map((a) => path.basename(a)).join(' ')}` : '');
  }

  /** One probe command in a throwaway working directory, with the call's environment, 5 s at most. */
  private async run(args: string[], timeoutMs = PROBE_TIMEOUT_MS): Promise<string> {
    if (this.stopped) throw new Error('the relay is stopping');
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'keel-relay-probe-'));
    try {
      return await new Promise<string>((resolve, reject) => {
        const child = execFile(this.command[0]!, [...this.command.slice(1), ...args], { cwd, env: this.env, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
          if (err) {
            const e = err as NodeJS.ErrnoException & { killed?: boolean };
            const why = e.code === 'ENOENT' ? 'not installed or not on PATH' : e.killed ? `no answer within ${timeoutMs / 1000} s` : (String(stderr).trim().split('\n').pop() || e.message).slice(0, 300);
            reject(new Error(why));
          } else resolve(String(stdout));
        });
        this.running.add(child);
        child.once('close', () => this.running.delete(child));
      });
    } finally {
      await rm(cwd, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}

/** `{models: [...]}`, `{data: [...]}` or a bare array, of strings or `{id|name}` objects. */
function parseModelList(value: unknown): string[] {
  const list = Array.isArray(value) ? value : (value as { models?: unknown; data?: unknown })?.models ?? (value as { data?: unknown })?.data;
  if (!Array.isArray(list)) throw new Error('its answer holds no model list');
  return list
    .map((m: unknown) => (typeof m === 'string' ? m : typeof m === 'object' && m !== null ? ((m as { id?: unknown }).id ?? (m as { name?: unknown }).name) : null))
    .filter((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= 200);
}
