/**
 * The parent's handle on a benchmark's client child (the hub's sockets, the stream's subscribers):
 * a forked script answering typed IPC messages, one reply per request. A child that exits or stays
 * silent past the timeout rejects the request with a sentence naming it.
 */
import { fork, type ChildProcess } from 'node:child_process';

export class ForkedChild<ToChild extends { type: string }, FromChild extends { type: string }> {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  /** `script` is the child's compiled module; `name` says which child in errors (`the sockets child`). */
  constructor(script: string, private readonly name: string) {
    this.child = fork(script, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  /** Sends `message` and resolves with the child's first reply of `replyType`. */
  ask<R extends FromChild['type']>(message: ToChild, replyType: R, timeoutMs: number): Promise<Extract<FromChild, { type: R }>> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      const onMessage = (msg: FromChild) => {
        if (msg?.type !== replyType) return;
        cleanup();
        resolve(msg as Extract<FromChild, { type: R }>);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`${this.name} exited (code ${code}) before answering '${message.type}'`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${this.name} did not answer '${message.type}' within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send(message);
    });
  }

  /** Disconnects (the child exits on disconnect), killing it if it has not gone within 5 s. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.disconnect();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}
