/** The parent's handle on the sockets child (see sockets-child.ts). */
import { fileURLToPath } from 'node:url';
import { ForkedChild } from '../common/forked-child.js';
import type { ConnectedMessage } from '../common/child-messages.js';
import type { CollectMessage, ConnectMessage, ExpectMessage, FromChild, PhaseReport, ToChild } from './socket-protocol.js';

const SCRIPT = fileURLToPath(new URL('./sockets-child.js', import.meta.url));

export class SocketPool {
  private readonly child = new ForkedChild<ToChild, FromChild>(SCRIPT, 'the sockets child');

  connect(msg: Omit<ConnectMessage, 'type'>, timeoutMs: number): Promise<ConnectedMessage> {
    return this.child.ask({ type: 'connect', ...msg }, 'connected', timeoutMs);
  }

  async expect(msg: Omit<ExpectMessage, 'type'>): Promise<void> {
    await this.child.ask({ type: 'expect', ...msg }, 'expecting', 10_000);
  }

  collect(msg: Omit<CollectMessage, 'type'>): Promise<PhaseReport> {
    return this.child.ask({ type: 'collect', ...msg }, 'report', msg.timeoutMs + 30_000);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
