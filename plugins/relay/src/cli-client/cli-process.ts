/**
 * One run of the local client (reference §4.3): argv as given (never a shell), the prompt on stdin,
 * a fresh temporary working directory removed after the process ends, the allow-listed environment,
 * and a kill of the whole process group on timeout, on abort (the HTTP client went away) or when the
 * reader stops. Launch failures are real statuses: a missing binary or another launch error 503
 * `provider_unavailable`, an argv over the OS limit 413.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { RelayFailure } from '../contracts.js';

/** Bytes of stderr kept for an error message (the tail). */
const STDERR_KEEP = 16 * 1024;
/** Bytes of stdout a non-stream run may print: one result envelope is far smaller. */
const STDOUT_MAX = 32 * 1024 * 1024;
/** Linux refuses any single argument longer than this (MAX_ARG_STRLEN), whatever ARG_MAX says. */
const LINUX_MAX_ARG_BYTES = 128 * 1024 - 1;
/** A conservative total for argv and environment together (ARG_MAX is 2 MiB on Linux, 1 MiB on macOS). */
const MAX_ARGV_BYTES = 1024 * 1024 - 64 * 1024;

export function providerFailure(status: number, code: string, message: string): RelayFailure {
  return new RelayFailure(status, { message, type: code, code, param: null });
}

/** 413 when argv cannot be passed to a process on this OS (a huge schema travels on argv). */
export function checkArgvSize(argv: string[], env: NodeJS.ProcessEnv): void {
  const longest = Math.max(...argv.map((a) => Buffer.byteLength(a)));
  const total = argv.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0) + Object.entries(env).reduce((n, [k, v]) => n + Buffer.byteLength(`${k}=${v ?? ''}`) + 1, 0);
  if ((process.platform === 'linux' && longest > LINUX_MAX_ARG_BYTES) || total > MAX_ARGV_BYTES) {
    throw new RelayFailure(413, { message: `The local client's command line would be ${total} bytes (its longest argument ${longest} bytes), over what this operating system passes to a process; send a smaller JSON schema.`, type: 'invalid_request_error', code: 'argv_too_large', param: 'response_format' });
  }
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  stdin: string;
  signal?: AbortSignal;
}

export class CliProcess {
  private stderrTail = '';
  private readonly closed: Promise<number | null>;
  private killedForTimeout = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly cwd: string,
    signal: AbortSignal | undefined,
  ) {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      this.stderrTail = (this.stderrTail + text).slice(-STDERR_KEEP);
    });
    this.closed = new Promise((resolve) => child.once('close', (code) => resolve(code)));
    const onAbort = () => this.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    void this.closed.finally(() => {
      signal?.removeEventListener('abort', onAbort);
      return rm(this.cwd, { recursive: true, force: true }).catch(() => undefined);
    });
  }

  /** Starts the process; rejects with 503 (missing binary, launch failure) or 413 (argv too long). */
  static async start(argv: string[], options: RunOptions): Promise<CliProcess> {
    const cwd = await mkdtemp(path.join(os.tmpdir(), 'keel-relay-cli-'));
    let child: ChildProcess;
    try {
      // Its own process group, so a kill also reaches whatever a wrapper script started.
      child = spawn(argv[0]!, argv.slice(1), { cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32', windowsHide: true });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
    } catch (err) {
      await rm(cwd, { recursive: true, force: true }).catch(() => undefined);
      throw launchFailure(argv[0]!, err as NodeJS.ErrnoException);
    }
    const run = new CliProcess(child, cwd, options.signal);
    if (options.signal?.aborted) run.kill();
    // A client that exits without reading stdin must not crash the relay with EPIPE.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(options.stdin, 'utf8');
    return run;
  }

  get stderr(): string {
    return this.stderrTail.trim();
  }

  get timedOut(): boolean {
    return this.killedForTimeout;
  }

  /** The whole output and the exit code; killed after `timeoutMs` (then 504). */
  async collect(timeoutMs: number): Promise<{ code: number | null; stdout: string }> {
    let stdout = '';
    let over = false;
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (text: string) => {
      if (over) return;
      stdout += text;
      if (stdout.length > STDOUT_MAX) {
        over = true;
        this.kill();
      }
    });
    const timer = setTimeout(() => this.kill(true), timeoutMs);
    const code = await this.closed.finally(() => clearTimeout(timer));
    if (this.killedForTimeout) throw timeoutFailure(timeoutMs);
    if (over) throw providerFailure(502, 'provider_failure', `The local client printed more than ${STDOUT_MAX} bytes; no result envelope is that large.`);
    return { code, stdout };
  }

  /** stdout line by line, each awaited for at most `timeoutMs` (then the process is killed: 504). */
  async *lines(timeoutMs: number): AsyncGenerator<string> {
    const reader = createInterface({ input: this.child.stdout!, crlfDelay: Infinity });
    const iterator = reader[Symbol.asyncIterator]();
    try {
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<'timeout'>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), timeoutMs);
        });
        const next = await Promise.race([iterator.next(), timeout]).finally(() => clearTimeout(timer));
        if (next === 'timeout') {
          this.kill(true);
          throw timeoutFailure(timeoutMs);
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      reader.close();
    }
  }

  /** The exit code once the process has ended. */
  exit(): Promise<number | null> {
    return this.closed;
  }

  kill(forTimeout = false): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (forTimeout) this.killedForTimeout = true;
    try {
      if (process.platform !== 'win32' && this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
      else this.child.kill('SIGKILL');
    } catch {
      this.child.kill('SIGKILL');
    }
  }
}

function timeoutFailure(timeoutMs: number): RelayFailure {
  return providerFailure(504, 'provider_timeout', `The local client gave no answer within ${timeoutMs / 1000} s (setting cli.timeoutSeconds) and was stopped.`);
}

function launchFailure(bin: string, err: NodeJS.ErrnoException): RelayFailure {
  if (err.code === 'E2BIG') {
    return new RelayFailure(413, { message: "The local client's command line is over what this operating system passes to a process; send a smaller JSON schema.", type: 'invalid_request_error', code: 'argv_too_large', param: 'response_format' });
  }
  const shown = bin.length > 200 ? `${bin.slice(0, 200)}…` : bin;
  const why = err.code === 'ENOENT' ? 'is not installed or not on PATH' : `could not be started (${err.code ?? err.message})`;
  return providerFailure(503, 'provider_unavailable', `The local command-line client '${shown}' ${why}; set cli.command to a client that runs.`);
}
