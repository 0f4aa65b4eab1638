/** Runs the real `keel` CLI in a child process, as a user would from a shell. */
import { spawn, type ChildProcess } from 'node:child_process';
import { keelBin, repoRoot } from './paths.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runKeel(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [keelBin, ...args], { cwd, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `keel serve ...` and resolves once it prints its listening line. */
export function startServer(args: string[], env: NodeJS.ProcessEnv = {}, cwd = repoRoot): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [keelBin, 'serve', ...args], { cwd, env: { ...process.env, ...env } });
    let out = '';
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`keel serve did not start within 20 s:\n${out}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const match = /Keel listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          output: () => out,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`keel serve exited with ${code} before listening:\n${out}`));
    });
  });
}
