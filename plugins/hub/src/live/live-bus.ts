/**
 * In-process fan-out of committed messages (new rows and tombstones) to live sockets. Listeners
 * are keyed by channel so a post only touches the connections of that channel's members.
 */
import type { StoredMessage } from '../records.js';

export type LiveListener = (m: StoredMessage) => void;

export class LiveBus {
  private readonly all = new Set<LiveListener>();

  subscribe(listener: LiveListener): () => void {
    this.all.add(listener);
    return () => void this.all.delete(listener);
  }

  publish(m: StoredMessage): void {
    for (const l of this.all) l(m);
  }
}
