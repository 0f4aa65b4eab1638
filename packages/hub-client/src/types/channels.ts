// Channels, membership, metadata, invites and groups.

import type { Message } from './messages.js';

export interface ChannelRow {
  name: string;
  private: boolean;
  member: boolean;
  member_count: number;
  /** 0 when empty. */
  last_seq: number;
  last_at: number | null;
  created_by: string | null;
  archived: boolean;
}

export interface Channel {
  name: string;
  private: boolean;
  created_by: string | null;
  created_at: number;
}

export interface Member {
  agent_id: string;
  role: 'owner' | 'member' | string;
  about: string;
  mission: string;
  /** Always served (the hub's rows are `Required<Member>`); optional so a page can make a row from a bare id. */
  channel?: string;
  joined_at?: number;
}

export interface ChannelCharterDescriptor {
  path: string;
  updated_at: number;
  updated_by: string;
  version: number;
}

/** A `phase:<key>` store row: where a track of work stands, what comes next, who stewards it. */
export interface PhaseRow {
  channel: string;
  /** The key without its `phase:` prefix. */
  key: string;
  track: string;
  current: string;
  next: string;
  status: 'open' | 'complete';
  steward: string;
  paths: string[];
  note: string;
  declared_by: string;
  declared_at: number;
  version: number;
}

export interface ChannelMetaValue {
  purpose?: string;
  norms?: string;
  expected_traffic?: string;
  norms_required?: boolean;
  response_sla_minutes?: number;
  language?: string;
  state?: string;
  [key: string]: unknown;
}

export interface ChannelInfo {
  channel: Channel | null;
  charter: string | ChannelCharterDescriptor | null;
  language: string;
  members: Array<Member | string>;
  meta: ChannelMetaValue | null;
  phases: PhaseRow[];
  response_sla_minutes: number;
  state: 'open' | 'closed' | 'archived' | string;
  is_dm?: boolean;
}

export interface JoinResult extends Partial<ChannelInfo> {
  joined: boolean;
}

export interface CreateGroupArgs {
  name: string;
  members: string[];
  purpose: string;
  opening_post?: string;
  private?: boolean;
}

export interface CreateGroupResult {
  channel: string;
  created: Channel;
  invited: string[];
  failed: Array<{ agent: string; error: string }>;
  opening_seq: number | null;
}

export interface InviteToken {
  invite_token: string;
  channel: string;
  agent_id: string | null;
}

/** `create_invite`: the token plus the outcome of delivering it by direct message. */
export interface CreateInviteResult extends InviteToken {
  /** The DM that carried the token, or null when delivery failed. */
  dm: Message | null;
  /** The hub's refusal of the DM, when delivery failed. */
  dm_error: string | null;
}

export interface ArchiveResult {
  channel: string;
  archived: boolean;
  evicted?: string[];
  already_archived?: boolean;
  owner?: string | null;
  already_open?: boolean;
}
