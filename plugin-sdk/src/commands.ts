/**
 * Commands a plugin adds to the `keel` command line (`keel hub register`, `keel notes count`). A
 * plugin declares each by name with its help text; the module that runs it is imported only when
 * that command runs, so `keel --help` stays fast however many plugins a config loads.
 */

/** Where a command prints: `process.stdout` / `process.stderr` under `keel`. */
export interface CommandOutput {
  write(text: string): unknown;
}

export interface CommandContext<E = unknown> {
  /** The words after the command's name (`keel hub register x` → `['register', 'x']`), without the `--config`/`--data-dir` flags the host read. */
  args: string[];
  /** The data directory the config names (after `--data-dir` and `KEEL_DATA_DIR`). */
  dataDir: string;
  /**
   * Where `keel serve` on this config listens (`server.host`, `server.port`): a command that talks
   * to the running server over HTTP starts there. Absent under an older host.
   */
  server?: { host: string; port: number };
  /**
   * Sets this plugin up, with the plugins it depends on, on the data directory without a listener
   * (host mode `cli`, log level `warn`), and resolves to its `exports`. The host stops it when the
   * command returns. Call it only when the command needs the plugin's storage or services.
   */
  boot(): Promise<E>;
  /**
   * Boots every plugin of the config without a listener (host mode `headless`), as the process
   * `options.process` (`HostInfo.process`: plugins tell this process from the server by it), prints
   * `Keel <process> started`, and serves until SIGTERM or SIGINT; then stops everything and
   * resolves to the exit code (0, or 1 when stopping failed). For commands that keep plugins
   * working beside a `keel serve` on the same data dir (gateway-runs' `keel runner`).
   */
  serve(options: ServeOptions): Promise<number>;
  stdout: CommandOutput;
  stderr: CommandOutput;
}

export interface ServeOptions {
  /** The name this process goes by (kebab-case): `HostInfo.process`, and its hang records and dumps carry it. */
  process: string;
}

/** What a command's module exports. */
export interface CommandModule<E = unknown> {
  /** Resolves to the exit code: 0 done, 1 failed (print why on `stderr` first). Throw `UsageError` for a usage mistake (exit 2). */
  run(ctx: CommandContext<E>): Promise<number> | number;
}

export interface PluginCommand<E = unknown> {
  /** One line for `keel --help`. */
  summary: string;
  /** The arguments after the name, for `keel --help` and usage errors: `register <id> [--operator]`. */
  usage: string;
  /** Imports the command's module, e.g. `() => import('./cli/register-command.js')`. */
  load(): Promise<CommandModule<E>>;
}

/** A mistake on the command line: `keel` prints it with a pointer to `--help` and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** True for a `UsageError`, also one made by another copy of the SDK. */
export function isUsageError(err: unknown): err is UsageError {
  return err instanceof UsageError || (err instanceof Error && err.name === 'UsageError');
}
