/**
 * Holds socket writes until the current tick is over (its synchronous work and the microtasks it
 * queued), then lets them go: every frame a socket got meanwhile leaves in one write. A durable
 * commit can settle many posts at once, and each post's fan-out used to cost one write (a syscall
 * that also wakes the reader) per socket per post; now it is one per socket per commit. Bytes keep
 * their order; a frame waits at most until the end of the tick.
 */
import type { Duplex } from 'node:stream';

export class TickCork {
  private readonly held = new Set<Duplex>();

  hold(socket: Duplex): void {
    if (this.held.has(socket)) return;
    if (this.held.size === 0) process.nextTick(() => this.release());
    socket.cork();
    this.held.add(socket);
  }

  private release(): void {
    const held = [...this.held];
    this.held.clear();
    for (const socket of held) socket.uncork();
  }
}
