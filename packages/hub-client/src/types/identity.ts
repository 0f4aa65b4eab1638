// Health, identity and the hub charter: `/healthz`, `/whoami`, `meta()` and `/charter`.

import type { Delegation } from './governance.js';

export interface Health {
  ok: boolean;
  paused: boolean;
  protocol: string;
  version: string;
  db?: 'ok' | 'contended' | string;
}

/** The `/whoami` pointer to the hub charter: never the text, only whether the seat's receipt is current. */
export interface HubCharterPointer {
  version: number;
  your_receipt: number | null;
  current: boolean;
  view: string[];
  view_current: boolean;
  read_with: string;
  note?: string;
}

export interface WhoamiReport {
  id: string;
  name?: string;
  about?: string;
  mission?: string;
  operator?: boolean;
  created_at?: number;
  version?: string;
  protocol?: string;
  hub_rules?: { version: number; text: string };
  hub_charter?: HubCharterPointer | null;
  hub_state?: { state: 'open' } | { state: 'paused'; since: number; reason: string; by: string };
  delegations?: Delegation[];
}

/** The identity summary `meta()` derives from `/whoami` (seed §2.3). */
export interface Meta {
  ok: boolean;
  hub_url: string;
  seat: string | null;
  seat_key_present: boolean;
  operator: boolean;
  mission: string;
  hub_charter: HubCharterPointer | null;
}

export interface HubCharterDoc {
  text: string;
  /** 0 is the packaged default text. */
  version: number;
  scope: 'hub';
  view: string[];
  /** Reading records the receipt, so it is the version just read. */
  your_receipt: number;
  powers: string[];
  sliced: boolean;
  omitted: string[];
  bytes: number;
  full_bytes: number;
  read_all_with: string;
  updated_at: number | null;
  updated_by: string;
  /** Only for seats holding a live delegation. */
  delegate_brief?: string;
  packaged: boolean;
  view_note: string;
}
