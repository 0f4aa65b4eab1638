/**
 * The hub's content services — per-channel files, the key-value store, charters, attachments,
 * phases, rulings, work rows and digests — built once per hub by the composition root, which also
 * wires what they offer the rest of the hub: `/whoami` and channel info parts, post gates (closed
 * rooms, charter and rulings gates), attachment resolution for posts, and the room charter every
 * new room is born with.
 */
import type { CharterDebtRow, WhoamiReport } from '@keel/hub-client';
import path from 'node:path';
import { conflict, forbidden } from '@keel/plugin-sdk';
import type { ChannelDirectory } from '../channels/channel-directory.js';
import type { HubConfig } from '../config.js';
import { POWERS, type Delegation, type Delegations } from '../governance/delegations.js';
import { mayAdministerRoom } from '../governance/room-authority.js';
import type { MessageFacts } from '../messages/message-views.js';
import type { PostGate } from '../messages/post-message.js';
import type { AgentRecord, ChannelRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { Attachments } from './attachments/attachment-store.js';
import { ThreadState } from '../attention/thread-state.js';
import { Digests } from './board/digest.js';
import { phaseRows, phaseRule } from './board/phases.js';
import { Rulings } from './board/rulings.js';
import { WorkItems } from './board/work-items.js';
import { HubRules } from './charter/hub-rules.js';
import { HubCharter } from './charter/hub-charter.js';
import type { RoomCharters } from './charter/room-charter.js';
import type { ChannelFs } from './fs/channel-fs.js';
import { adminsOf } from './room-admin.js';
import type { ChannelStore } from './store/channel-store.js';
import { META_KEY, validateMeta, type ChannelMeta } from './store/channel-meta.js';
import { exactRule, fsKeyRule, prefixRule, type StoreRule } from './store/store-rules.js';

function delegateBrief(d: Delegation | undefined): string | null {
  if (!d) return null;
  const scope = d.scope === '' || d.scope === '*' ? 'hub-wide' : `in '${d.scope}'`;
  const note = d.note ? ` (${d.note})` : '';
  return `you hold a delegation${note}: ${d.powers.join(', ')}, ${scope}, until ${new Date(d.expires_at * 1000).toISOString()}. Act within those powers only; the hub checks every act.`;
}

/** What the content services read from the rest of the hub; built before them by the composition root. */
export interface HubContentDeps {
  db: HubDb;
  config: HubConfig;
  /** The plugin's data directory (attachments live under `attachments/`). */
  dataDir: string;
  facts: MessageFacts;
  channels: ChannelDirectory;
  delegations: Delegations;
  /** Built first: new rooms are seeded with a charter, and posts gated by it. */
  fs: ChannelFs;
  store: ChannelStore;
  roomCharters: RoomCharters;
}

export class HubContent {
  readonly fs: ChannelFs;
  readonly store: ChannelStore;
  readonly hubCharter: HubCharter;
  readonly hubRules: HubRules;
  readonly roomCharters: RoomCharters;
  readonly attachments: Attachments;
  readonly rulings: Rulings;
  readonly work: WorkItems;
  readonly digests: Digests;
  readonly storeRules: StoreRule[];
  private readonly db: HubDb;
  private readonly channels: ChannelDirectory;
  private readonly delegations: Delegations;

  constructor(deps: HubContentDeps) {
    const { db, config, delegations } = deps;
    this.db = db;
    this.channels = deps.channels;
    this.delegations = delegations;
    this.fs = deps.fs;
    this.store = deps.store;
    this.roomCharters = deps.roomCharters;
    const meta = (channel: string) => this.meta(channel);
    const isAdmin = (c: ChannelRecord, seat: AgentRecord) => this.isAdmin(c, seat);
    this.hubRules = new HubRules(db);
    this.hubCharter = new HubCharter(db, {
      roles: (seat) => this.roles(seat),
      powers: (seat) => (seat.operator ? [...POWERS] : (delegations.activeFor(seat.id)[0]?.powers ?? [])),
      delegateBrief: (seat) => delegateBrief(delegations.activeFor(seat.id)[0]),
    });
    this.attachments = new Attachments(db, path.join(deps.dataDir, 'attachments'), {
      maxBytes: config.attachmentMaxBytes, channelQuotaBytes: config.channelAttachmentQuotaBytes,
    });
    this.rulings = new Rulings(db, this.store, meta, isAdmin);
    this.work = new WorkItems(db, this.store);
    this.digests = new Digests(db, deps.facts, this.store, this.rulings, new ThreadState(db, deps.facts, deps.delegations));
    this.storeRules = [
      fsKeyRule,
      exactRule(META_KEY, ({ c, seat, value, previous }) => {
        if (!this.isAdmin(c, seat)) throw forbidden(`'${META_KEY}' is channel-level metadata: writable by ${adminsOf(c)}`);
        return validateMeta(value, previous?.value as ChannelMeta | undefined);
      }),
      phaseRule(meta, isAdmin),
      this.rulings.rule(),
      prefixRule('decision:', ({ c, seat, value }) => {
        if (this.meta(c.name)?.gated_acts?.includes('decision') && !this.isAdmin(c, seat)) {
          throw forbidden(`recording a decision in '${c.name}' is a gated act (gated_acts: decision): it is done by ${adminsOf(c)}`);
        }
        return value;
      }),
    ];
  }

  /** Owner, operator, or a delegate whose grant reaches the room. */
  isAdmin(c: ChannelRecord, seat: AgentRecord): boolean {
    return mayAdministerRoom(c, seat, this.delegations);
  }

  meta(channel: string): ChannelMeta | undefined {
    return this.store.value<ChannelMeta>(channel, META_KEY);
  }

  /** The seat kinds a charter view is cut for: every seat is a member; owners of a live room and delegates read their sections too. */
  roles(seat: AgentRecord): string[] {
    const roles = ['member'];
    const owns = this.db.channelsOf(seat.id).some((name) => {
      const c = this.channels.get(name);
      return c !== undefined && !c.archived && c.owner === seat.id;
    });
    if (owns) roles.push('owner');
    if (this.delegations.isDelegate(seat.id)) roles.push('delegate');
    return roles;
  }

  /** Post gate: a closed room takes posts (and uploads) only from its administrators. */
  checkNotClosed(c: ChannelRecord, seat: AgentRecord): void {
    if (this.meta(c.name)?.state === 'closed' && !this.isAdmin(c, seat)) throw conflict(`channel '${c.name}' is closed to new posts`);
  }

  /** Charters the seat owes a reading of (hub first, then its rooms), for the owed report. */
  charterDebts(seat: AgentRecord): CharterDebtRow[] {
    const p = this.hubCharter.pointer(seat);
    const hub: CharterDebtRow[] = p.view_current
      ? []
      : [{ scope: 'hub', version: p.version, your_receipt: p.your_receipt, gated: false, read_with: 'read_charter()', reason: p.current ? 'view' : 'version' }];
    return [...hub, ...this.roomCharters.debts(seat)];
  }

  /** `/whoami` part: the hub rules and the seat's hub charter pointer. */
  whoamiPart(seat: AgentRecord): Partial<WhoamiReport> {
    return { hub_rules: this.hubRules.current(), hub_charter: this.hubCharter.pointer(seat) };
  }

  /** Channel info part: meta, room charter descriptor, SLA, language, state and phases. */
  infoPart(c: ChannelRecord): Record<string, unknown> {
    const meta = this.meta(c.name) ?? null;
    return {
      meta, charter: this.roomCharters.descriptor(c.name), response_sla_minutes: meta?.response_sla_minutes ?? 60, language: meta?.language ?? 'plain',
      state: c.archived ? 'archived' : (meta?.state ?? 'open'), phases: phaseRows(this.store, c.name),
    };
  }

  /** Post gates of the content area, in order: closed rooms, then the room charter, then standing rulings. */
  postGates(): PostGate[] {
    return [
      (c, seat) => this.checkNotClosed(c, seat),
      (c, seat) => this.roomCharters.gate(c, seat),
      (c, seat) => this.rulings.gate(c, seat),
    ];
  }
}
