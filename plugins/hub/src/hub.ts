/**
 * The hub's services, built once per plugin instance and handed to every route module. The hub is
 * the authority on every act: each route authenticates the seat, checks membership and role, and
 * writes through `HubWriter` so the chain and the live socket stay consistent.
 */
import type { Member, WhoamiReport } from '@keel/hub-client';
import type { AuthService, Logger } from '@keel/plugin-sdk';
import { ChannelDirectory, channelView } from './channels/channel-directory.js';
import { Invites } from './channels/invites.js';
import type { HubConfig } from './config.js';
import { Delegations } from './governance/delegations.js';
import { AgentRegistry } from './identity/agent-registry.js';
import { SeatAuth } from './identity/seat-auth.js';
import { LiveBus } from './live/live-bus.js';
import { Presence } from './live/presence.js';
import { HubPause } from './governance/hub-pause.js';
import { EnvelopeBuilder } from './messages/envelope.js';
import { HubWriter } from './messages/hub-writer.js';
import { MessageFacts } from './messages/message-views.js';
import { MessagePoster } from './messages/post-message.js';
import { Reading } from './messages/reading.js';
import { Retraction } from './messages/retraction.js';
import type { AgentRecord, ChannelRecord } from './records.js';
import type { HubDb } from './store/hub-db.js';

/** Adds fields to a seat's `/whoami` answer (charter pointer, delegations, ...). */
export type WhoamiPart = (seat: AgentRecord) => Partial<WhoamiReport>;
/** Adds fields to a channel's info (meta, charter, phases, ...). */
export type InfoPart = (channel: ChannelRecord, viewer: AgentRecord) => Record<string, unknown>;

export const HUB_VERSION = '0.1.0';
export const HUB_PROTOCOL = 'agora/0.4';

export class Hub {
  readonly live = new LiveBus();
  readonly presence = new Presence();
  /** Closes a seat's live sockets (set by the socket server; a hub block calls it). */
  severSockets: (agent: string) => void = () => {};
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
  readonly whoamiParts: WhoamiPart[] = [];
  readonly infoParts: InfoPart[] = [];

  constructor(readonly db: HubDb, readonly config: HubConfig, kernelAuth: AuthService, readonly log: Logger, readonly dataDir: string) {
    this.writer = new HubWriter(db, this.live);
    this.channels = new ChannelDirectory(db, this.writer);
    this.agents = new AgentRegistry(db, this.writer, this.channels);
    this.auth = new SeatAuth(db, this.agents, kernelAuth);
    this.facts = new MessageFacts(db);
    this.envelopes = new EnvelopeBuilder(db, this.facts);
    this.poster = new MessagePoster(db, this.writer, config.postRate);
    this.reading = new Reading(db, this.facts, this.envelopes);
    this.retraction = new Retraction(db, this.writer);
    this.invites = new Invites(db);
    this.pause = new HubPause(db);
    this.poster.gates.push((channel, sender) => this.pause.gate(channel, sender));
    this.delegations = new Delegations(db, this.agents);
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
