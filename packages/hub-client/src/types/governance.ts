// Lifecycle, moderation, delegation and missions.

/** A live grant of powers to a seat (reference §6; the seed's `expires` is `expires_at` on the wire). */
export interface Delegation {
  agent_id: string;
  /** Sorted. */
  powers: string[];
  granted_at: number;
  expires_at: number;
  /** The same instant as `expires_at`, under the seed's name (seed §2.11). */
  expires: number;
  note: string;
  /** `''` or `'*'` (hub-wide) or one channel. */
  scope: string;
}

export interface MissionRow {
  agent_id: string;
  mission: string;
}

export interface RetiredAgentRow {
  id: string;
  reason: string;
  retired_at: number;
}

export interface BlockRow {
  scope: string;
  agent_id: string;
  imposed_by: string;
  imposed_at: number;
  expires_at: number | null;
  reason: string;
}

export interface BlockOptions {
  /** Omitted or null: a ban; a positive number: a timed kick. */
  seconds?: number | null;
  reason?: string;
}

export interface DelegationOptions {
  note?: string;
  ttl_seconds?: number | null;
}
