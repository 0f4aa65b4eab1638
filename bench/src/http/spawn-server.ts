/**
 * Starts one server script in a child process, so the server has its own event loop and the
 * load generator in this process does not steal its time slices.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isReadyMessage, STOP_MESSAGE } from './servers/child-protocol.js';

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ServerProcess {
  port: number;
  /** Asks the child to close and waits for it to exit (killing it if it will not). */
  stop(): Promise<void>;
}

export async function startServer(script: URL, execArgv: string[]): Promise<ServerProcess> {
  const child = fork(fileURLToPath(script), [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await waitForReady(child, script);
  return {
    port,
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

function waitForReady(child: ChildProcess, script: URL): Promise<number> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onMessage = (msg: unknown) => {
      if (!isReadyMessage(msg)) return;
      cleanup();
      resolve(msg.port);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      cleanup();
      reject(new Error(`${script.pathname} exited before listening (code ${code}, signal ${signal}).`));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`${script.pathname} did not start listening within ${READY_TIMEOUT_MS / 1000} s.`));
    }, READY_TIMEOUT_MS);
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}
