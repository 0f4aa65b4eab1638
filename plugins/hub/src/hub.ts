/**
 * The hub's core services, built once per plugin instance by the composition root and handed to
 * the route modules. The hub is the authority on every act: the kernel authenticates the seat
 * (`SeatAuth`), each route checks membership and role, and writes through `HubWriter` so the chain
 * and the live socket stay consistent.
 */
import type { Member, WhoamiReport } from '@keel/hub-client';
import type { Logger } from '@keel/plugin-sdk';
import { channelView, type ChannelDirectory } from './channels/channel-directory.js';
import type { Invites } from './channels/invites.js';
import type { HubConfig } from './config.js';
import type { Delegations } from './governance/delegations.js';
import type { HubPause } from './governance/hub-pause.js';
import type { AgentRegistry } from './identity/agent-registry.js';
import type { SeatAuth } from './identity/seat-auth.js';
import type { LiveBus } from './live/live-bus.js';
import type { Presence } from './live/presence.js';
import type { EnvelopeBuilder } from './messages/envelope.js';
import type { HubWriter } from './messages/hub-writer.js';
import type { MessageFacts } from './messages/message-views.js';
import type { MessagePoster } from './messages/post-message.js';
import type { Reading } from './messages/reading.js';
import type { Retraction } from './messages/retraction.js';
import type { AgentRecord, ChannelRecord } from './records.js';
import type { HubDb } from './store/hub-db.js';

/** Adds fields to a seat's `/whoami` answer (charter pointer, delegations, ...). */
export type WhoamiPart = (seat: AgentRecord) => Partial<WhoamiReport>;
/** Adds fields to a channel's info (meta, charter, phases, ...). */
export type InfoPart = (channel: ChannelRecord, viewer: AgentRecord) => Record<string, unknown>;

export const HUB_VERSION = '0.1.0';
export const HUB_PROTOCOL = 'agora/0.4';

/** The hub's core services and hooks, every one built by the composition root (`compose-hub.ts`). */
export interface HubParts {
  db: HubDb;
  config: HubConfig;
  log: Logger;
  dataDir: string;
  live: LiveBus;
  presence: Presence;
  writer: HubWriter;
  channels: ChannelDirectory;
  agents: AgentRegistry;
  auth: SeatAuth;
  facts: MessageFacts;
  envelopes: EnvelopeBuilder;
  poster: MessagePoster;
  reading: Reading;
  retraction: Retraction;
  invites: Invites;
  pause: HubPause;
  delegations: Delegations;
  /** What `/whoami` adds to the seat's own fields (charter pointer, rules, delegations). */
  whoamiParts: readonly WhoamiPart[];
  /** What channel info adds to the channel and its members (meta, charter, phases, state). */
  infoParts: readonly InfoPart[];
  /** Closes a seat's live sockets (a hub block, a retirement). */
  severSockets(agent: string): void;
}

/** The hub's core services with the views several routes share (members, channel info, the calling member). */
export class Hub {
  readonly db: HubDb;
  readonly config: HubConfig;
  readonly log: Logger;
  readonly dataDir: string;
  readonly live: LiveBus;
  readonly presence: Presence;
  readonly writer: HubWriter;
  readonly channels: ChannelDirectory;
  readonly agents: AgentRegistry;
  readonly auth: SeatAuth;
  readonly facts: MessageFacts;
  readonly envelopes: EnvelopeBuilder;
  readonly poster: MessagePoster;
  readonly reading: Reading;
  readonly retraction: Retraction;
  readonly invites: Invites;
  readonly pause: HubPause;
  /** Powers operators lend to seats (`hasPower(agent, power, channel?)`). */
  readonly delegations: Delegations;
  readonly severSockets: (agent: string) => void;
  private readonly whoamiParts: readonly WhoamiPart[];
  private readonly infoParts: readonly InfoPart[];

  constructor(parts: HubParts) {
    this.db = parts.db;
    this.config = parts.config;
    this.log = parts.log;
    this.dataDir = parts.dataDir;
    this.live = parts.live;
    this.presence = parts.presence;
    this.writer = parts.writer;
    this.channels = parts.channels;
    this.agents = parts.agents;
    this.auth = parts.auth;
    this.facts = parts.facts;
    this.envelopes = parts.envelopes;
    this.poster = parts.poster;
    this.reading = parts.reading;
    this.retraction = parts.retraction;
    this.invites = parts.invites;
    this.pause = parts.pause;
    this.delegations = parts.delegations;
    this.severSockets = parts.severSockets;
    this.whoamiParts = parts.whoamiParts;
    this.infoParts = parts.infoParts;
  }

  /** A channel's members with their seats' about and mission. */
  members(channel: string): Array<Required<Member>> {
    return this.db.membersOf(channel).map((m) => {
      const a = this.agents.get(m.agent_id);
      return { channel, agent_id: m.agent_id, role: m.role, about: a?.about ?? '', mission: a?.mission ?? '', joined_at: m.joined_at };
    });
  }

  /** Channel info (seed §2.6); plugins parts add meta, charter and phases. */
  channelInfo(c: ChannelRecord, viewer: AgentRecord): Record<string, unknown> {
    const base = {
      channel: channelView(c), meta: null, members: this.members(c.name), response_sla_minutes: 60, language: 'plain',
      state: c.archived ? 'archived' : 'open', is_dm: c.is_dm, charter: null, phases: [],
    };
    return Object.assign(base, ...this.infoParts.map((part) => part(c, viewer)));
  }

  /** The calling seat and the channel it must belong to (403/404 with the hub's sentences). */
  member(seat: AgentRecord, channel: string): { seat: AgentRecord; channel: ChannelRecord } {
    return { seat, channel: this.channels.requireMember(channel, seat.id) };
  }

  /** `member`, for a write: the channel must also be open (409 once archived). */
  memberWriting(seat: AgentRecord, channel: string): { seat: AgentRecord; channel: ChannelRecord } {
    const m = this.member(seat, channel);
    this.pause.requireOpen(m.seat);
    this.poster.checkOpen(m.channel);
    return m;
  }

  whoamiExtras(seat: AgentRecord): Partial<WhoamiReport> {
    return Object.assign({}, ...this.whoamiParts.map((part) => part(seat)));
  }
}
