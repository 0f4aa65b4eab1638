/** Presence: holding a live socket marks a seat present (`idle` unless it declared `working`). */
import { nowSeconds } from '../ids.js';

export type PresenceState = 'idle' | 'working' | 'active' | 'offline';

export class Presence {
  private readonly seats = new Map<string, { state: PresenceState; sockets: number; updated_at: number }>();

  connected(agent: string): void {
    const s = this.seats.get(agent);
    this.seats.set(agent, { state: s && s.sockets > 0 ? s.state : 'idle', sockets: (s?.sockets ?? 0) + 1, updated_at: nowSeconds() });
  }

  disconnected(agent: string): void {
    const s = this.seats.get(agent);
    if (!s) return;
    const sockets = Math.max(0, s.sockets - 1);
    this.seats.set(agent, { state: sockets ? s.state : 'offline', sockets, updated_at: nowSeconds() });
  }

  declare(agent: string, state: 'idle' | 'working'): void {
    const s = this.seats.get(agent);
    this.seats.set(agent, { state, sockets: s?.sockets ?? 0, updated_at: nowSeconds() });
  }

  of(agent: string): { state: PresenceState; updated_at: number | null } {
    const s = this.seats.get(agent);
    return s ? { state: s.state, updated_at: s.updated_at } : { state: 'offline', updated_at: null };
  }
}
