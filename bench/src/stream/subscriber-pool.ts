/** The parent's handle on the subscriber child (see subscribers-child.ts). */
import { fileURLToPath } from 'node:url';
import { ForkedChild } from '../common/forked-child.js';
import type { ConnectedMessage } from '../common/child-messages.js';
import type { CollectMessage, ConnectMessage, DeliveryReport, FromChild, ToChild } from './client-protocol.js';

const SCRIPT = fileURLToPath(new URL('./subscribers-child.js', import.meta.url));

export class SubscriberPool {
  private readonly child = new ForkedChild<ToChild, FromChild>(SCRIPT, 'the subscriber child');

  connect(msg: Omit<ConnectMessage, 'type'>, timeoutMs: number): Promise<ConnectedMessage> {
    return this.child.ask({ type: 'connect', ...msg }, 'connected', timeoutMs);
  }

  collect(msg: Omit<CollectMessage, 'type'>): Promise<DeliveryReport> {
    return this.child.ask({ type: 'collect', ...msg }, 'report', msg.timeoutMs + 30_000);
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}
