/**
 * Starts one server script in a child process, so the server has its own event loop and the
 * load generator in this process does not steal its time slices.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CPU_MESSAGE, isCpuMessage, isReadyMessage, STOP_MESSAGE } from './servers/child-protocol.js';

const READY_TIMEOUT_MS = 30_000;
const REPLY_TIMEOUT_MS = 5_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ServerProcess {
  port: number;
  /** The child's process id (e.g. for strace to attach to). */
  pid: number;
  /** The child's CPU time so far, user + system, in microseconds. */
  cpuMicros(): Promise<number>;
  /** Asks the child to close and waits for it to exit (killing it if it will not). */
  stop(): Promise<void>;
}

export async function startServer(script: URL, execArgv: string[]): Promise<ServerProcess> {
  const name = fileURLToPath(script);
  const child = fork(name, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await reply(child, name, isReadyMessage, READY_TIMEOUT_MS);
  return {
    port: ready.port,
    pid: child.pid!,
    cpuMicros: async () => {
      child.send(CPU_MESSAGE);
      const { usage } = await reply(child, name, isCpuMessage, REPLY_TIMEOUT_MS);
      return usage.user + usage.system;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.send(STOP_MESSAGE);
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** The child's next message of one kind; the child dying or staying silent is an error. */
function reply<T>(child: ChildProcess, name: string, accept: (msg: unknown) => msg is T, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const fail = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onMessage = (msg: unknown) => {
      if (!accept(msg)) return;
      cleanup();
      resolve(msg);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(new Error(`${name} exited (code ${code}, signal ${signal}).`));
    const onError = (err: Error) => fail(err);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`${name} did not answer within ${timeoutMs / 1000} s.`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}
