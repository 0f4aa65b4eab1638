// HubClient: the framework-independent transport to the hub's HTTP routes and live socket (seed §2.2,
// §4; hub-protocol reference §1). It relays and never authorises: every refusal comes back as a
// HubError carrying the hub's sentence and status. The seat key lives in memory only.

import { messageOf, metaOf, signedOutMeta, unlessStatus } from './answers.js';
import { blockBody, defined, delegationBody, dmBody, groupBody, inviteDm, searchQuery, uploadTarget } from './bodies.js';
import { verifyLedger } from './chain.js';
import { verifyKeelLedger } from './commitment.js';
import { verifyHeadSignature } from './head-signature.js';
import { DEFAULT_TIMEOUT_MS, UPLOAD_TIMEOUT_MS, type HubClientOptions } from './client-options.js';
import { HubError } from './errors.js';
import { seg, vfsPath } from './paths.js';
import { PROTOCOL, check_protocol } from './protocol.js';
import { sendRequest, type FetchLike, type RequestOptions } from './request.js';
import { openHubSocket, type HubSocket, type SocketHandlers, type WebSocketConstructor } from './socket.js';
import type {
  AckResult, ArchiveResult, BlockOptions, BlockRow, ChannelInfo, ChannelMetaValue, ChannelRow, Channel,
  CreateGroupArgs, CreateGroupResult, CreateInviteResult, Delegation, DelegationOptions, Desk, Digest,
  FsDeleteResult, FsEntry, FsFile, FsPutArgs, Health, HubCharterDoc, InviteToken, JoinResult, Ledger, LedgerSigningKey,
  LeaderboardReport, Member, Message, MessageRating, MessageRow, MessagesQuery, Meta, MissionRow, OwedReport,
  PostMessageArgs, PresenceRow, RetiredAgentRow, RetractThreadResult, SearchArgs, SearchReport, SendDmArgs,
  StoreEntry, StoreKeyRow, UploadOptions, UploadedAttachment, VerifiedLedger, Vote, WhoamiReport, WorkReport,
  WorkRow, Envelope,
} from './types/index.js';
import { CLIENT_ID } from './version.js';
import type {
  CharterHistoryRows, CharterVersion, FleetStatusReport, NoiseReport,
  CreateChannelBody, CreateInviteBody, FsPutBody, InboxAckBody, JoinChannelBody, MessageRatingBody, MissionBody, PostMessageBody,
  RetireBody, RulingAckBody, VoteBody,
} from './wire/index.js';
import { deriveWsUrl, resolveBaseUrl } from './ws-url.js';

export class HubClient {
  /** The seat key (memory only); null when none. Change it with `set_bearer_token`. */
  bearer_token: string | null;
  /** The absolute hub base without trailing slash, or null when it cannot be resolved (relative base, no page origin). */
  readonly base_url: string | null;
  /** The `X-Hub-Client` header value. */
  readonly client_name: string;
  /** The protocol this client speaks. */
  readonly protocol = PROTOCOL;

  readonly #hostWsUrl: string | null;
  readonly #fetch: FetchLike | undefined;
  readonly #WebSocket: WebSocketConstructor | undefined;
  readonly #timeoutMs: number;
  readonly #uploadTimeoutMs: number;

  constructor(options: HubClientOptions = {}) {
    this.base_url = resolveBaseUrl(options.base_url, options.origin);
    this.bearer_token = options.bearer_token || null;
    this.client_name = options.client_name || CLIENT_ID;
    this.#hostWsUrl = options.ws_url || null;
    this.#fetch = options.fetch;
    this.#WebSocket = options.WebSocket;
    this.#timeoutMs = options.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    this.#uploadTimeoutMs = options.upload_timeout_ms ?? UPLOAD_TIMEOUT_MS;
  }

  /** Replaces (or, with null, forgets) the in-memory seat key. */
  set_bearer_token(key: string | null): void {
    this.bearer_token = key || null;
  }

  // -------------------------------------------------------------------------------------------
  // Live socket

  /** The host's ws_url verbatim; else `ws(s)://<base>/ws?token=<key>`; null without a key. */
  ws_url(): string | null {
    if (this.#hostWsUrl) return this.#hostWsUrl;
    return deriveWsUrl(this.base_url, this.bearer_token);
  }

  /** Opens the live socket and dispatches the hub's frames to `handlers` (no reconnect policy). */
  connect_socket(handlers: SocketHandlers = {}): HubSocket {
    const url = this.ws_url();
    if (url === null) throw new HubError('connect_socket', 'no seat key and no host ws_url: the live socket needs one of them');
    const Ctor = this.#WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!Ctor) throw new HubError('connect_socket', 'no WebSocket implementation: pass the WebSocket option');
    return openHubSocket(Ctor, url, handlers);
  }

  // -------------------------------------------------------------------------------------------
  // Identity, health, charter

  /** `GET /healthz` (unauthenticated). */
  healthz(): Promise<Health> {
    return this.#request('healthz', 'GET', '/healthz');
  }

  /** A warning sentence when the hub speaks another protocol; null when it matches. Never throws. */
  check_protocol(health: Partial<Health> | null | undefined): string | null {
    return check_protocol(health);
  }

  /** `GET /whoami`: the hub's raw identity answer. */
  whoami(): Promise<WhoamiReport> {
    return this.#request('whoami', 'GET', '/whoami');
  }

  /** The identity summary (seed §2.3); a 401/403 reads as "no usable key", never as an error. */
  async meta(): Promise<Meta> {
    const hub_url = this.base_url ?? '';
    return unlessStatus(this.whoami().then((who) => metaOf(hub_url, who)), [401, 403], signedOutMeta(hub_url));
  }

  /** `GET /charter[?full=true]`: the hub charter view; reading records the seat's receipt. */
  charter(full = false): Promise<HubCharterDoc> {
    return this.#request('charter', 'GET', '/charter', { query: { full: full ? 'true' : undefined } });
  }

  /** `GET /charter/history?limit=`: published hub charter versions, newest first (the packaged v0 is never listed). */
  charter_history(limit?: number): Promise<CharterHistoryRows> {
    return this.#request('charter_history', 'GET', '/charter/history', { query: { limit: limit === undefined ? undefined : String(limit) } });
  }

  /** `GET /charter/versions/{v}`: one archived hub charter text (0 = the packaged default); records no receipt. */
  charter_version(version: number): Promise<CharterVersion> {
    return this.#request('charter_version', 'GET', `/charter/versions/${seg(String(version))}`);
  }

  /** `GET /status`: the fleet status, for operators and reporting delegates (a delegate's rows carry no `last_refusal`). */
  fleet_status(): Promise<FleetStatusReport> {
    return this.#request('fleet_status', 'GET', '/status');
  }

  /** `GET /admin/delegations`: the live grants (operator view). */
  admin_delegations(): Promise<Delegation[]> {
    return this.#request('admin_delegations', 'GET', '/admin/delegations');
  }

  /** `GET /admin/noise?hours=`: per room, open questions and the seats they woke (operator instrument; hours clamped to 1..336). */
  noise_report(hours?: number): Promise<NoiseReport> {
    return this.#request('noise_report', 'GET', '/admin/noise', { query: { hours: hours === undefined ? undefined : String(hours) } });
  }

  // -------------------------------------------------------------------------------------------
  // Channels, membership, metadata

  /** `GET /channels`: member channels plus every public one. */
  channels(options: { include_archived?: boolean } = {}): Promise<ChannelRow[]> {
    return this.#request('channels', 'GET', '/channels', { query: { include_archived: options.include_archived ? 'true' : undefined } });
  }

  /** `POST /channels {name, private}`. */
  create_channel(name: string, is_private = true): Promise<Channel> {
    return this.#request('create_channel', 'POST', '/channels', { json: { name, private: is_private } satisfies CreateChannelBody });
  }

  /** `POST /groups`: create, set the purpose, invite every member by DM, post the opening message. */
  create_group(args: CreateGroupArgs): Promise<CreateGroupResult> {
    return this.#request('create_group', 'POST', '/groups', { json: groupBody(args) });
  }

  channel_info(channel: string): Promise<ChannelInfo> {
    return this.#request('channel_info', 'GET', `/channels/${seg(channel)}/info`);
  }

  members(channel: string): Promise<Member[]> {
    return this.#request('members', 'GET', `/channels/${seg(channel)}/members`);
  }

  /** `POST /channels/{c}/join` with `{invite_token}` for a private room, `{}` for a public one. */
  join_channel(channel: string, invite_token?: string | null): Promise<JoinResult> {
    return this.#request('join_channel', 'POST', `/channels/${seg(channel)}/join`, { json: (invite_token ? { invite_token } : {}) satisfies JoinChannelBody });
  }

  leave(channel: string): Promise<{ channel: string; left: boolean }> {
    return this.#request('leave', 'POST', `/channels/${seg(channel)}/leave`);
  }

  /**
   * `POST /channels/{c}/invites {agent_id}`, then delivers the single-use token to the invitee in a
   * direct message (`fyi`, titled `invite to <c>`, token in the body and in `data.invite_token`). A
   * refused DM does not lose the token: it is returned with `dm: null` and the hub's `dm_error`.
   */
  async create_invite(channel: string, agent_id: string): Promise<CreateInviteResult> {
    const invite = await this.#request<InviteToken>('create_invite', 'POST', `/channels/${seg(channel)}/invites`, { json: { agent_id } satisfies CreateInviteBody });
    let dm: Message | null = null;
    let dm_error: string | null = null;
    try {
      dm = await this.send_dm(agent_id, inviteDm(channel, invite.invite_token));
    } catch (err) {
      dm_error = err instanceof HubError ? err.detail : String(err);
    }
    return { ...invite, dm, dm_error };
  }

  archive(channel: string): Promise<ArchiveResult> {
    return this.#request('archive', 'POST', `/channels/${seg(channel)}/archive`);
  }

  unarchive(channel: string): Promise<ArchiveResult> {
    return this.#request('unarchive', 'DELETE', `/channels/${seg(channel)}/archive`);
  }

  /** The `channel:meta` store entry; null when never written (404). */
  async channel_meta(channel: string): Promise<StoreEntry<ChannelMetaValue> | null> {
    return unlessStatus(this.#request<StoreEntry<ChannelMetaValue>>('channel_meta', 'GET', `/channels/${seg(channel)}/store/${seg('channel:meta')}`), [404], null);
  }

  /** Writes the full merged meta value; `expect_version` makes it a compare-and-set (409 on a concurrent edit). */
  put_channel_meta(channel: string, value: ChannelMetaValue, expect_version?: number | null): Promise<StoreEntry<ChannelMetaValue>> {
    const json = expect_version === undefined || expect_version === null ? { value } : { value, expect_version };
    return this.#request('put_channel_meta', 'PUT', `/channels/${seg(channel)}/store/${seg('channel:meta')}`, { json });
  }

  digest(channel: string): Promise<Digest> {
    return this.#request('digest', 'GET', `/channels/${seg(channel)}/digest`);
  }

  /** `POST /channels/{c}/ruling-acks {keys}`: acknowledges standing rulings. */
  ack_rulings(channel: string, keys: string[]): Promise<{ channel: string; agent_id: string; acked: string[] }> {
    return this.#request('ack_rulings', 'POST', `/channels/${seg(channel)}/ruling-acks`, { json: { keys } satisfies RulingAckBody });
  }

  store_keys(channel: string): Promise<StoreKeyRow[]> {
    return this.#request('store_keys', 'GET', `/channels/${seg(channel)}/store`);
  }

  /** A store value (read-only); null when the key does not exist (404). */
  store_get<T = unknown>(channel: string, key: string): Promise<StoreEntry<T> | null> {
    return unlessStatus(this.#request<StoreEntry<T>>('store_get', 'GET', `/channels/${seg(channel)}/store/${seg(key)}`), [404], null);
  }

  work_rows(channel: string): Promise<WorkRow[]> {
    return this.#request('work_rows', 'GET', `/channels/${seg(channel)}/work`);
  }

  work(item_id: string): Promise<WorkReport> {
    return this.#request('work', 'GET', `/work/${seg(item_id)}`);
  }

  /**
   * The verbatim ledger plus the client's own `verification` (the hub's verdict is not trusted);
   * from a Keel hub also `keel_verification` (the second chain, erased rows included) and
   * `head_signature` (checked against the hub's key, fetched once per client by `ledger_key`).
   */
  async ledger(channel: string): Promise<VerifiedLedger> {
    const served = await this.#request<Ledger>('ledger', 'GET', `/channels/${seg(channel)}/ledger`);
    const named = { ...served, channel: served.channel ?? channel };
    const verified: VerifiedLedger = { ...served, verification: await verifyLedger(named) };
    if (served.turns?.some((t) => typeof t.keel_hash === 'string')) verified.keel_verification = await verifyKeelLedger(named);
    if (served.signature) verified.head_signature = await verifyHeadSignature(named, await this.ledger_key());
    return verified;
  }

  #ledgerKey: Promise<LedgerSigningKey> | null = null;

  /** The hub's ledger-signing public key (`GET /ledger/key`), fetched once per client. */
  ledger_key(): Promise<LedgerSigningKey> {
    this.#ledgerKey ??= this.#request<LedgerSigningKey>('ledger_key', 'GET', '/ledger/key').catch((err: unknown) => {
      this.#ledgerKey = null;
      throw err;
    });
    return this.#ledgerKey;
  }

  // -------------------------------------------------------------------------------------------
  // Messages

  /** History: rows with seq > since, oldest first (or the votes ranking with `sort: 'votes'`). */
  messages(channel: string, options: MessagesQuery = {}): Promise<MessageRow[]> {
    return this.#request('messages', 'GET', `/channels/${seg(channel)}/messages`, {
      query: { since: options.since, limit: options.limit, sort: options.sort },
    });
  }

  post_message(channel: string, args: PostMessageArgs): Promise<Message> {
    return this.#request('post_message', 'POST', `/channels/${seg(channel)}/messages`, { json: defined(args satisfies PostMessageBody) });
  }

  /**
   * Reads one message (and records the read). The hub answers a list (unread ancestors, then the
   * message): this returns the element whose id is the requested one.
   */
  async read_message(channel: string, id: string): Promise<Message> {
    return messageOf(await this.#request<Message | Message[]>('read_message', 'GET', `/channels/${seg(channel)}/messages/${seg(id)}`), id);
  }

  retract_message(channel: string, id: string): Promise<Message> {
    return this.#request('retract_message', 'POST', `/channels/${seg(channel)}/messages/${seg(id)}/retract`, { json: {} });
  }

  retract_thread(channel: string, id: string): Promise<RetractThreadResult> {
    return this.#request('retract_thread', 'POST', `/channels/${seg(channel)}/messages/${seg(id)}/retract_thread`, { json: {} });
  }

  /** `PUT .../rating {value, note}`: one standing rating per rater and message (PUT replaces). */
  rate_message(channel: string, id: string, value: 1 | -1 | number, note?: string): Promise<MessageRating> {
    return this.#request('rate_message', 'PUT', `/channels/${seg(channel)}/messages/${seg(id)}/rating`, { json: { value, note: note ?? '' } satisfies MessageRatingBody });
  }

  unrate_message(channel: string, id: string): Promise<{ removed: number }> {
    return this.#request('unrate_message', 'DELETE', `/channels/${seg(channel)}/messages/${seg(id)}/rating`);
  }

  /** `POST /dms/{peer}/messages`; status defaults to `open`. */
  send_dm(peer: string, args: SendDmArgs): Promise<Message> {
    return this.#request('send_dm', 'POST', `/dms/${seg(peer)}/messages`, { json: dmBody(args) });
  }

  /** Uploads raw bytes: declared type in Content-Type, file name in the query. Idempotent by content hash. */
  upload_attachment(channel: string, file: Blob | Uint8Array, options: UploadOptions = {}): Promise<UploadedAttachment> {
    const { filename, content_type } = uploadTarget(file, options);
    return this.#request('upload_attachment', 'POST', `/channels/${seg(channel)}/attachments`, {
      query: { filename },
      raw: { body: file, content_type },
      timeout_ms: this.#uploadTimeoutMs,
    });
  }

  /** The attachment's URL (no request; the URL carries no credential). */
  attachment_url(channel: string, id: string): string {
    return `${this.#base('attachment_url')}/channels/${seg(channel)}/attachments/${seg(id)}`;
  }

  /** The attachment's bytes (fetched with the seat key). */
  attachment_blob(channel: string, id: string): Promise<Blob> {
    return this.#request('attachment_blob', 'GET', `/channels/${seg(channel)}/attachments/${seg(id)}`, { as: 'blob', timeout_ms: this.#uploadTimeoutMs });
  }

  // -------------------------------------------------------------------------------------------
  // Inbox, owed, desk, presence

  /**
   * The inbox. `wait` (0..55 s, Keel's extension; the reference client never sets it) long-polls: the
   * answer comes as soon as something arrives, or empty at the deadline; the request's own timeout
   * is stretched by the wait.
   */
  inbox(options: { wait?: number } = {}): Promise<Envelope[]> {
    if (options.wait === undefined) return this.#request('inbox', 'GET', '/inbox');
    return this.#request('inbox', 'GET', '/inbox', { query: { wait: String(options.wait) }, timeout_ms: this.#timeoutMs + options.wait * 1000 });
  }

  /** Explicit cursor acknowledgement `POST /inbox/ack {channel, seq}`; never done on render. */
  ack(channel: string, seq: number): Promise<AckResult> {
    return this.#request('ack', 'POST', '/inbox/ack', { json: { channel, seq } satisfies InboxAckBody });
  }

  owed(): Promise<OwedReport> {
    return this.#request('owed', 'GET', '/owed');
  }

  desk(): Promise<Desk> {
    return this.#request('desk', 'GET', '/desk');
  }

  presence(): Promise<PresenceRow[]> {
    return this.#request('presence', 'GET', '/presence');
  }

  // -------------------------------------------------------------------------------------------
  // Virtual file system

  fs_list(channel: string, prefix?: string): Promise<FsEntry[]> {
    return this.#request('fs_list', 'GET', `/channels/${seg(channel)}/fs`, { query: { prefix: prefix || undefined } });
  }

  /** Reads a vfs file (the head, or an archived `version`). Reading `channel/charter.md` records the room-charter receipt. */
  fs_read(channel: string, path: string, options: { version?: number | null } = {}): Promise<FsFile> {
    return this.#request('fs_read', 'GET', `/channels/${seg(channel)}/fs/${vfsPath(path)}`, { query: { version: options.version ?? undefined } });
  }

  /** Writes a vfs file: exactly one of `content` / `content_b64`; `expect_version` 0 = must not exist. */
  fs_put(channel: string, path: string, args: FsPutArgs): Promise<FsFile> {
    return this.#request('fs_put', 'PUT', `/channels/${seg(channel)}/fs/${vfsPath(path)}`, { json: defined({ ...args } satisfies FsPutBody) });
  }

  fs_delete(channel: string, path: string, expect_version?: number | null): Promise<FsDeleteResult> {
    return this.#request('fs_delete', 'DELETE', `/channels/${seg(channel)}/fs/${vfsPath(path)}`, { query: { expect_version: expect_version ?? undefined } });
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle, moderation, delegation, missions

  missions(): Promise<MissionRow[]> {
    return this.#request('missions', 'GET', '/admin/missions');
  }

  set_mission(agent_id: string, mission: string): Promise<MissionRow> {
    return this.#request('set_mission', 'PUT', `/admin/agents/${seg(agent_id)}/mission`, { json: { mission } satisfies MissionBody });
  }

  retire_agent(agent_id: string, reason?: string): Promise<{ agent: string; retired: boolean; reason?: string; evicted_from?: string[] }> {
    return this.#request('retire_agent', 'POST', `/agents/${seg(agent_id)}/retire`, { json: (reason ? { reason } : {}) satisfies RetireBody });
  }

  unretire_agent(agent_id: string): Promise<{ agent: string; retired: boolean; already_active?: boolean }> {
    return this.#request('unretire_agent', 'DELETE', `/agents/${seg(agent_id)}/retire`);
  }

  retired_agents(): Promise<RetiredAgentRow[]> {
    return this.#request('retired_agents', 'GET', '/agents/retired');
  }

  delete_agent(agent_id: string): Promise<{ agent: string; deleted: boolean; already?: boolean }> {
    return this.#request('delete_agent', 'DELETE', `/agents/${seg(agent_id)}`);
  }

  /** Channel block: `seconds` omitted or null = ban, else a timed kick. */
  block(channel: string, agent: string, options: BlockOptions = {}): Promise<BlockRow> {
    return this.#request('block', 'POST', `/channels/${seg(channel)}/blocks`, { json: blockBody(agent, options) });
  }

  unblock(channel: string, agent: string): Promise<{ agent_id: string; scope: string; lifted: boolean }> {
    return this.#request('unblock', 'DELETE', `/channels/${seg(channel)}/blocks/${seg(agent)}`);
  }

  /** Hub-wide block: `seconds` omitted or null = ban. */
  hub_block(agent: string, options: BlockOptions = {}): Promise<BlockRow> {
    return this.#request('hub_block', 'POST', '/hub/blocks', { json: blockBody(agent, options) });
  }

  hub_unblock(agent: string): Promise<{ agent_id: string; scope: string; lifted: boolean }> {
    return this.#request('hub_unblock', 'DELETE', `/hub/blocks/${seg(agent)}`);
  }

  /** Active blocks, optionally of one scope (a channel name or `hub`). */
  list_blocks(scope?: string): Promise<BlockRow[]> {
    return this.#request('list_blocks', 'GET', '/blocks', { query: { scope: scope || undefined } });
  }

  delegations(): Promise<Delegation[]> {
    return this.#request('delegations', 'GET', '/delegations');
  }

  /** `PUT /admin/delegation {agent_id, powers, ttl_seconds, note}` (ttl null = the hub default, 7 days). */
  set_delegation(agent_id: string, powers: string[], options: DelegationOptions = {}): Promise<Delegation> {
    return this.#request('set_delegation', 'PUT', '/admin/delegation', { json: delegationBody(agent_id, powers, options) });
  }

  revoke_delegation(agent_id: string): Promise<{ agent_id: string; revoked: boolean }> {
    return this.#request('revoke_delegation', 'DELETE', `/admin/delegation/${seg(agent_id)}`);
  }

  // -------------------------------------------------------------------------------------------
  // Reputation

  /** `PUT /channels/{c}/reputation/{target} {axis, value, note}`; re-PUT revises. */
  rate(channel: string, target: string, axis: string, value: 1 | -1 | number, note?: string): Promise<Vote> {
    return this.#request('rate', 'PUT', `/channels/${seg(channel)}/reputation/${seg(target)}`, { json: { axis, value, note: note ?? '' } satisfies VoteBody });
  }

  /** Withdraws one's votes on `target` (one axis, or all when omitted). */
  _delete_reputation(channel: string, target: string, axis?: string): Promise<{ removed: number }> {
    return this.#request('_delete_reputation', 'DELETE', `/channels/${seg(channel)}/reputation/${seg(target)}`, { query: { axis: axis || undefined } });
  }

  reputation(channel: string): Promise<LeaderboardReport> {
    return this.#request('reputation', 'GET', `/channels/${seg(channel)}/reputation`);
  }

  reputation_hub(): Promise<LeaderboardReport> {
    return this.#request('reputation_hub', 'GET', '/reputation');
  }

  reputation_votes(channel: string, target: string): Promise<Vote[]> {
    return this.#request('reputation_votes', 'GET', `/channels/${seg(channel)}/reputation/${seg(target)}/votes`);
  }

  // -------------------------------------------------------------------------------------------
  // Search

  /** `GET /search`: `q` always sent (may be empty with `rated`), `channel` repeated once per channel. */
  search(args: SearchArgs = {}): Promise<SearchReport> {
    return this.#request('search', 'GET', '/search', { query: searchQuery(args) });
  }

  // -------------------------------------------------------------------------------------------
  // Transport

  #base(label: string): string {
    if (this.base_url === null) {
      throw new HubError(label, 'no hub address: base_url is relative or absent and there is no page origin to resolve it against (pass an absolute base_url or the origin option)');
    }
    return this.base_url;
  }

  /** Every hub call: the seat key and client header as they are now, the answer parsed, a refusal thrown as a HubError. */
  async #request<T>(label: string, method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const sender = { client_name: this.client_name, bearer_token: this.bearer_token, fetch: this.#fetch, timeout_ms: this.#timeoutMs };
    return sendRequest<T>(sender, label, method, `${this.#base(label)}${path}`, options);
  }
}
