/**
 * Presence (reference §8.1 B3), in memory: a restart makes everyone `offline`. Per seat the hub keeps
 * its live sockets, its declared state (socket `presence` frame or `PUT /presence`), when its key last
 * signed in (`last_seen`: every successful seat-key call and socket connect) and when it last asked
 * for its obligations with `X-Agora-Reception` (`last_reception`). The state is derived on every read.
 */
import { nowSeconds } from '../ids.js';

export type PresenceState = 'idle' | 'working' | 'active' | 'offline';

/** How long HTTP activity keeps a seat `active` (settings `presence.*`). */
export interface PresenceWindows {
  /** Seconds after the last signed-in call (or reception) a seat without a socket reads `active`. */
  activeSeconds: number;
  /** Seconds after the last reception poll a seat reads `active`. */
  receptionSeconds: number;
}

/** A declared state older than this, with no socket and no activity, no longer shows (reference: 120 s). */
const DECLARED_STALE_SECONDS = 120;

interface SeatPresence {
  sockets: number;
  declared: string | null;
  declared_at: number;
  last_seen: number;
  last_reception: number;
}

export class Presence {
  private readonly seats = new Map<string, SeatPresence>();

  constructor(private readonly windows: PresenceWindows) {}

  private seat(agent: string): SeatPresence {
    let s = this.seats.get(agent);
    if (!s) this.seats.set(agent, (s = { sockets: 0, declared: null, declared_at: 0, last_seen: 0, last_reception: 0 }));
    return s;
  }

  /** A successful seat-key sign-in (an HTTP call or a socket connect). */
  seen(agent: string): void {
    this.seat(agent).last_seen = nowSeconds();
  }

  /** When the seat last polled with `X-Agora-Reception` (seconds), or null if never since the start. */
  lastReceptionOf(agent: string): number | null {
    return this.seats.get(agent)?.last_reception || null;
  }

  /** `GET /owed` with `X-Agora-Reception`: the seat's reception loop is running. */
  received(agent: string): void {
    this.seat(agent).last_reception = nowSeconds();
  }

  connected(agent: string): void {
    const s = this.seat(agent);
    const now = nowSeconds();
    s.sockets++;
    s.last_seen = now;
    if (s.declared === null || s.declared === 'offline') Object.assign(s, { declared: 'idle', declared_at: now });
  }

  disconnected(agent: string): void {
    const s = this.seats.get(agent);
    if (!s || s.sockets === 0) return;
    s.sockets--;
    if (s.sockets === 0) Object.assign(s, { declared: 'offline', declared_at: nowSeconds() });
  }

  /** Stores a declared state; answers the stored state (not the derived one), as the reference does. */
  declare(agent: string, state: 'idle' | 'working'): { agent_id: string; state: string; updated_at: number } {
    const s = this.seat(agent);
    Object.assign(s, { declared: state, declared_at: nowSeconds() });
    return { agent_id: agent, state, updated_at: s.declared_at };
  }

  /** The derived state, first rule that matches: socket, recent activity, stale, declared. */
  of(agent: string): { state: string; updated_at: number } {
    const s = this.seats.get(agent);
    if (!s) return { state: 'offline', updated_at: 0 };
    const now = nowSeconds();
    if (s.sockets > 0) return { state: s.declared === null || s.declared === 'offline' ? 'idle' : s.declared, updated_at: s.declared_at };
    const activity = Math.max(s.last_seen, s.last_reception);
    if ((activity > 0 && now - activity <= this.windows.activeSeconds) || (s.last_reception > 0 && now - s.last_reception <= this.windows.receptionSeconds)) {
      return { state: 'active', updated_at: activity };
    }
    if (s.declared === null || now - s.declared_at > DECLARED_STALE_SECONDS) return { state: 'offline', updated_at: 0 };
    return { state: s.declared, updated_at: s.declared_at };
  }
}
