/** The parent's handle on the sockets child (see sockets-child.ts). */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CollectMessage, ConnectedMessage, ConnectMessage, ExpectMessage, FromChild, PhaseReport, ToChild } from './socket-protocol.js';

const SCRIPT = fileURLToPath(new URL('./sockets-child.js', import.meta.url));

export class SocketPool {
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;

  constructor() {
    this.child = fork(SCRIPT, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  connect(msg: Omit<ConnectMessage, 'type'>, timeoutMs: number): Promise<ConnectedMessage> {
    return this.ask({ type: 'connect', ...msg }, 'connected', timeoutMs) as Promise<ConnectedMessage>;
  }

  async expect(msg: Omit<ExpectMessage, 'type'>): Promise<void> {
    await this.ask({ type: 'expect', ...msg }, 'expecting', 10_000);
  }

  collect(msg: Omit<CollectMessage, 'type'>): Promise<PhaseReport> {
    return this.ask({ type: 'collect', ...msg }, 'report', msg.timeoutMs + 30_000) as Promise<PhaseReport>;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.disconnect();
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      await this.exited;
      clearTimeout(timer);
    }
  }

  private ask(message: ToChild, replyType: FromChild['type'], timeoutMs: number): Promise<FromChild> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      const onMessage = (msg: FromChild) => {
        if (msg?.type !== replyType) return;
        cleanup();
        resolve(msg);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`the sockets child exited (code ${code}) before answering '${message.type}'`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`the sockets child did not answer '${message.type}' within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send(message);
    });
  }
}
