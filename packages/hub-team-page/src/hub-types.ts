/**
 * The part of the hub client the team page calls, as a structural type: the page runs on
 * `@keel/hub-client`'s `HubClient` (main.ts) or on any object of this shape a host passes in.
 * Row shapes are the client's own.
 */
import type {
  AckResult, Channel, ChannelInfo, ChannelRow, FsEntry, FsFile, FsPutArgs, Health, Envelope, HubCharterDoc, JoinResult, Message,
  MessageRow, MessagesQuery, Meta, OwedReport, PostMessageArgs, PresenceRow, RetractThreadResult, SearchArgs,
  SearchReport, SendDmArgs, UploadOptions, UploadedAttachment, VerifiedLedger,
} from '@keel/hub-client';

export type {
  Ask, AttachmentRef, Channel, ChannelCharterDescriptor, ChannelInfo, ChannelRow, CharterDebtRow, Envelope, FsEntry, FsFile, Health, HubCharterDoc,
  LedgerTurn, LedgerVerification, Member, Message, MessageRow, Meta, OwedReport, PostMessageArgs, PresenceRow,
  RetractThreadResult, SearchHit, SearchReport, SearchSection, VerifiedLedger,
} from '@keel/hub-client';

/** What the page calls on its hub client. */
export interface TeamHub {
  set_bearer_token(token: string | null): void;
  ws_url(): string | null;
  meta(): Promise<Meta>;
  /** Raw identity; sign-in calls it only to surface the hub's sentence when `meta()` reads "no usable key". */
  whoami(): Promise<unknown>;
  healthz(): Promise<Health>;
  channels(): Promise<ChannelRow[]>;
  messages(channel: string, query?: MessagesQuery): Promise<MessageRow[]>;
  post_message(channel: string, args: PostMessageArgs): Promise<Message>;
  /** Reads one message by id (records the read); used only to find a focused message outside the loaded window. */
  read_message(channel: string, id: string): Promise<Message>;
  retract_message(channel: string, id: string): Promise<Message>;
  retract_thread(channel: string, id: string): Promise<RetractThreadResult>;
  rate_message(channel: string, id: string, value: number, note?: string): Promise<unknown>;
  unrate_message(channel: string, id: string): Promise<unknown>;
  inbox(): Promise<Envelope[]>;
  ack(channel: string, seq: number): Promise<AckResult>;
  owed(): Promise<OwedReport>;
  /** The hub charter as cut for this seat; reading it records the seat's receipt (the Owed panel's Read action). */
  charter(full?: boolean): Promise<HubCharterDoc>;
  fs_list(channel: string, prefix?: string): Promise<FsEntry[]>;
  fs_read(channel: string, path: string): Promise<FsFile>;
  fs_put(channel: string, path: string, body: FsPutArgs): Promise<FsFile>;
  fs_delete(channel: string, path: string, expect_version?: number): Promise<unknown>;
  search(args: SearchArgs): Promise<SearchReport>;
  presence(): Promise<PresenceRow[]>;
  send_dm(peer: string, args: SendDmArgs): Promise<Message>;
  create_channel(name: string, is_private?: boolean): Promise<Channel>;
  join_channel(channel: string, invite_token?: string | null): Promise<JoinResult>;
  channel_info(channel: string): Promise<ChannelInfo>;
  upload_attachment(channel: string, file: Blob | Uint8Array, options?: UploadOptions): Promise<UploadedAttachment>;
  /** The attachment's URL (no request); the page links to it and fetches the bytes with `attachment_blob`. */
  attachment_url(channel: string, id: string): string;
  attachment_blob(channel: string, id: string): Promise<Blob>;
  /** The verbatim ledger plus the client's own `verification` (the hub's verdict is not trusted). */
  ledger(channel: string): Promise<VerifiedLedger>;
}

/** The protocol the client speaks: a hub serving another shows a warning badge, never a refusal. */
export { PROTOCOL as PINNED_PROTOCOL } from '@keel/hub-client';
