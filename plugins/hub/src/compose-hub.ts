/**
 * The hub's composition root: every service is built here, once, in dependency order, and every
 * hook one part of the hub offers another (room creation and leave hooks, post gates, attachment
 * resolution, `/whoami` and channel-info parts, severing sockets) is given here to the service that
 * runs it, at construction. Route factories only receive built services and declare routes, so the
 * order in which they are built changes nothing.
 *
 * Cycles (a room's charter gates posts; the charter's views ask who administers the room) are closed
 * by functions that read services only when a request runs, never during construction.
 */
import { postMessageBody } from '@keel/hub-client/wire';
import type { InferenceService } from '@keel/plugin-inference';
import type { AuthService, Logger, Validator } from '@keel/plugin-sdk';
import { Doctor } from './admin/doctor.js';
import { FleetStatus } from './admin/fleet-status.js';
import { RefusedSends } from './admin/refused-sends.js';
import { SlowRequests } from './admin/slow-requests.js';
import { Desk } from './attention/desk.js';
import { InboxWaits } from './attention/inbox-waits.js';
import { composeReads, type ReadServices } from './compose-reads.js';
import { OwedReporter } from './attention/owed-report.js';
import { HeadSigner } from './chain/head-signer.js';
import { Erasure } from './messages/erasure.js';
import { PinnedObligations } from './attention/pinned-obligations.js';
import { ThreadState } from './attention/thread-state.js';
import { ChannelDirectory } from './channels/channel-directory.js';
import { Invites } from './channels/invites.js';
import type { HubConfig } from './config.js';
import { phaseRows } from './content/board/phases.js';
import { RoomCharters } from './content/charter/room-charter.js';
import { ChannelFs } from './content/fs/channel-fs.js';
import { HubContent } from './content/hub-content.js';
import { META_KEY, type ChannelMeta } from './content/store/channel-meta.js';
import { ChannelStore } from './content/store/channel-store.js';
import { AgentLifecycle } from './governance/agent-lifecycle.js';
import { Blocks } from './governance/blocks.js';
import { ChannelArchive } from './governance/channel-archive.js';
import { Delegations } from './governance/delegations.js';
import { Groups } from './governance/groups.js';
import { HubPause } from './governance/hub-pause.js';
import { JoinTokens } from './governance/join-tokens.js';
import { retiredPeerGate } from './governance/retired-peer-gate.js';
import { Hub } from './hub.js';
import { AgentRegistry } from './identity/agent-registry.js';
import { SeatAuth } from './identity/seat-auth.js';
import { LiveBus } from './live/live-bus.js';
import { Presence } from './live/presence.js';
import { SocketServer } from './live/socket-server.js';
import { EnvelopeBuilder } from './messages/envelope.js';
import { HubWriter } from './messages/hub-writer.js';
import { MessageFacts } from './messages/message-views.js';
import { MessagePoster } from './messages/post-message.js';
import { Reading } from './messages/reading.js';
import { Retraction } from './messages/retraction.js';
import { Leaderboard } from './reputation/leaderboard.js';
import { VoteStore } from './reputation/votes.js';
import { AgentSource } from './search/agent-source.js';
import { FileSource } from './search/file-source.js';
import { MessageIndex } from './search/message-index.js';
import { MessageSource } from './search/message-source.js';
import { SearchService } from './search/search-service.js';
import { Embedder } from './search/semantic/embedder.js';
import { EmbeddingSetting } from './search/semantic/embedding-setting.js';
import { SearchIndexes } from './search/semantic/search-indexes.js';
import { SemanticCorpus } from './search/semantic/semantic-docs.js';
import { SemanticIndexer } from './search/semantic/semantic-indexer.js';
import { SemanticSearch } from './search/semantic/semantic-search.js';
import { VectorStore } from './search/semantic/vector-store.js';
import { StoreSource } from './search/store-source.js';
import type { HubDb } from './store/hub-db.js';

/** What the hub is built from: the plugin's storage, config and the kernel services it uses. */
export interface HubDeps {
  db: HubDb;
  config: HubConfig;
  kernelAuth: AuthService;
  log: Logger;
  /** The plugin's data directory (`<data>/plugins/hub`). */
  dataDir: string;
  /** The kernel's schema validator: socket frames are held to the HTTP routes' request schemas. */
  validator: Validator;
  /** The inference plugin's service when it is loaded (semantic search embeds with it). */
  inference?: InferenceService;
}

/** Every service of a hub, built: what `setup` hands the route factories and the socket. */
export interface HubServices {
  hub: Hub;
  content: HubContent;
  sockets: SocketServer;
  votes: VoteStore;
  leaderboard: Leaderboard;
  blocks: Blocks;
  lifecycle: AgentLifecycle;
  groups: Groups;
  archive: ChannelArchive;
  joinTokens: JoinTokens;
  owed: OwedReporter;
  desk: Desk;
  search: SearchService;
  /** Board, supervise, activity, colleague notes, thread closing, room hand-over (reference §8.3, §8.5). */
  reads: ReadServices;
  erasure: Erasure;
  headSigner: HeadSigner;
  /** The admin routes' instruments; `refusals` and `slow` also wrap the routes that feed them. */
  admin: { slow: SlowRequests; refusals: RefusedSends; fleet: FleetStatus; doctor: Doctor };
  inboxWaits: InboxWaits;
  indexes: SearchIndexes;
  /** Keeps semantic search's vectors current; null without the inference plugin. */
  semanticIndexer: SemanticIndexer | null;
}

export function composeHub({ db, config, kernelAuth, log, dataDir, validator, inference }: HubDeps): HubServices {
  const live = new LiveBus();
  const presence = new Presence(config.presence);
  const writer = new HubWriter(db, live);
  const votes = new VoteStore(db);

  // Content stores come first: every new room is seeded with a charter inside its creating write.
  const fs = new ChannelFs(db);
  const store = new ChannelStore(db);
  const roomCharters = new RoomCharters(db, fs, (channel) => store.value<ChannelMeta>(channel, META_KEY));
  const channels = new ChannelDirectory(db, writer, {
    onCreate: [(w, c) => roomCharters.seedIn(w, c)],
    // A seat that leaves a room takes its votes there with it.
    onLeave: [(channel, agent) => votes.withdrawAllIn(channel, agent)],
  });
  const agents = new AgentRegistry(db, writer, channels);
  const delegations = new Delegations(db, agents);
  const facts = new MessageFacts(db);
  const threads = new ThreadState(db, facts, delegations);
  const envelopes = new EnvelopeBuilder(db, facts, (m) => threads.closed(m));
  const pause = new HubPause(db, writer);
  const content = new HubContent({ db, config, dataDir, facts, channels, delegations, fs, store, roomCharters });
  const poster = new MessagePoster(db, writer, config.postRate, {
    gates: [(c, sender) => pause.gate(c, sender), ...content.postGates(), retiredPeerGate(agents)],
    attachments: (channel, refs) => content.attachments.resolveIn(channel, refs),
  });

  // Blocks and retirements close a seat's sockets; the socket server is built from the hub below.
  let sockets: SocketServer | null = null;
  const hub = new Hub({
    db, config, log, dataDir, live, presence, writer, channels, agents, facts, envelopes, poster, pause, delegations,
    auth: new SeatAuth(db, agents, kernelAuth, (seat) => presence.seen(seat.id)),
    reading: new Reading(db, facts, envelopes, new PinnedObligations(db, threads)),
    retraction: new Retraction(db, writer),
    invites: new Invites(db),
    whoamiParts: [(seat) => content.whoamiPart(seat), (seat) => ({ delegations: delegations.activeFor(seat.id) })],
    infoParts: [(c) => content.infoPart(c)],
    severSockets: (agent) => sockets?.sever(agent),
  });
  // A socket `post` frame is the HTTP post body: the same schema, compiled once.
  sockets = new SocketServer(hub, presence, validator.compile(postMessageBody, 'post'));

  const index = new MessageIndex(db, live);
  const refusals = new RefusedSends();
  const fleet = new FleetStatus(hub, { owed: new OwedReporter(hub), store, refusals, lastReception: (agent) => presence.lastReceptionOf(agent) });
  const admin = {
    refusals, fleet,
    slow: new SlowRequests(config.slowRequests, log),
    doctor: new Doctor(hub, { fleet, owed: new OwedReporter(hub), store, refusals, charterDebts: (seat) => content.charterDebts(seat) }),
  };
  const embedder = inference ? new Embedder(inference) : null;
  const embedding = new EmbeddingSetting(db);
  const vectors = new VectorStore(db);
  const corpus = new SemanticCorpus(db, fs, config.semantic.maxChunksPerDoc);
  const semanticIndexer = embedder ? new SemanticIndexer(embedder, embedding, corpus, vectors, config.semantic, log) : null;
  const semantic = new SemanticSearch(db, embedding, vectors, corpus, config.semantic, embedder, semanticIndexer);
  return {
    hub,
    content,
    sockets,
    votes,
    leaderboard: new Leaderboard(hub, votes),
    blocks: new Blocks(hub),
    lifecycle: new AgentLifecycle(hub),
    groups: new Groups(hub, store),
    archive: new ChannelArchive(hub),
    joinTokens: new JoinTokens(hub),
    inboxWaits: new InboxWaits(live, config.inboxWait, (seat, m) => m.sender !== seat && db.isMember(m.channel, seat)),
    owed: new OwedReporter(hub, {
      charters: (seat) => content.charterDebts(seat),
      // A phase is owed by its steward while it is open.
      phases: (seat) => db.channelsOf(seat.id).flatMap((c) => phaseRows(store, c)).filter((p) => p.status === 'open' && p.steward === seat.id),
    }),
    desk: new Desk(hub),
    erasure: new Erasure(db, writer, content.attachments),
    headSigner: new HeadSigner(dataDir, log),
    admin,
    search: new SearchService(hub, [new MessageSource(hub, index), new StoreSource(store), new AgentSource(hub), new FileSource(fs)]),
    reads: composeReads(hub, content),
    indexes: new SearchIndexes(db, fs, index, semantic),
    semanticIndexer,
  };
}
