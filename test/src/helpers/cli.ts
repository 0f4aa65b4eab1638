/** Runs the real `keel` CLI in a child process, as a user would from a shell. */
import { spawn, type ChildProcess } from 'node:child_process';
import { keelBin, repoRoot } from './paths.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** How long a process gets to print what a test waits for: generous, the machine may be busy. */
export const PROCESS_DEADLINE_MS = 60_000;

/** Runs `keel ...` to its exit; a command that hangs instead (idle) is killed and fails the test after `deadlineMs`. */
export async function runKeel(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot, deadlineMs = PROCESS_DEADLINE_MS): Promise<CliResult> {
  const proc = spawnKeel(args, env, cwd);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      proc.child.kill('SIGKILL');
      reject(new Error(`keel ${args.join(' ')} did not exit within ${deadlineMs / 1000} s:\n${proc.output()}`));
    }, deadlineMs);
  });
  try {
    const code = await Promise.race([proc.exited, hung]);
    return { code, stdout: proc.stdout(), stderr: proc.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

/** A long-running `keel` process (serve, runner) whose output a test follows. */
export interface KeelProcess {
  child: ChildProcess;
  /** Everything printed so far, stdout and stderr together. */
  output: () => string;
  /** What it printed so far on stdout alone. */
  stdout: () => string;
  /** What it printed so far on stderr alone. */
  stderr: () => string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in the output (whole lines or not); rejects when the process exits first or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function spawnKeel(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): KeelProcess {
  const child = spawn(process.execPath, [keelBin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Chunks are appended as they come, so a line split across two chunks still matches once whole.
  let out = '';
  let stdout = '';
  let stderr = '';
  let exitCode: number | null | undefined;
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout!.on('data', (d: Buffer) => ((stdout += d.toString()), (out += d.toString()), notify()));
  child.stderr!.on('data', (d: Buffer) => ((stderr += d.toString()), (out += d.toString()), notify()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => {
    exitCode = code;
    notify();
    resolve(code);
  }));
  return {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, ms = PROCESS_DEADLINE_MS) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) return done(() => resolve(match));
          if (exitCode !== undefined) done(() => reject(new Error(`keel ${args[0]} exited with ${exitCode} before printing ${pattern}:\n${out}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`keel ${args[0]} did not print ${pattern} within ${ms / 1000} s:\n${out}`))), ms);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    stop(signal = 'SIGTERM') {
      if (exitCode === undefined) child.kill(signal);
      return exited;
    },
  };
}

export interface ServerProcess extends KeelProcess {
  url: string;
}

/** Starts `keel serve ...` and resolves once it prints its listening line (it is killed if it never does). */
export async function startServer(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<ServerProcess> {
  const server = spawnKeel(['serve', ...args], env, cwd);
  try {
    const match = await server.waitFor(/Keel listening on (http:\/\/\S+)/);
    return { ...server, url: match[1]! };
  } catch (err) {
    await server.stop('SIGKILL');
    throw err;
  }
}

/** Starts `keel runner ...` and resolves once it prints that it started (it is killed if it never does). */
export async function startRunner(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<KeelProcess> {
  const runner = spawnKeel(['runner', ...args], env, cwd);
  try {
    await runner.waitFor(/Keel runner started/);
    return runner;
  } catch (err) {
    await runner.stop('SIGKILL');
    throw err;
  }
}

/** Runs `keel ...` to its exit with `input` written to its stdin (then closed); killed after `deadlineMs`. */
export async function runKeelWithInput(args: string[], input: string, env: NodeJS.ProcessEnv = {}, cwd = repoRoot, deadlineMs = PROCESS_DEADLINE_MS): Promise<CliResult> {
  const child = spawn(process.execPath, [keelBin, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(input);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`keel ${args.join(' ')} did not exit within ${deadlineMs / 1000} s:\n${stdout}${stderr}`));
    }, deadlineMs);
  });
  try {
    const code = await Promise.race([new Promise<number | null>((resolve) => child.once('close', resolve)), hung]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
