/**
 * The part of the hub client the team page calls, as a structural type: the page runs on
 * `@keel/hub-client`'s `HubClient` (main.ts) or on any object of this shape a host passes in.
 * Row shapes are the client's own.
 */
import type {
  AckResult, ChannelRow, FsEntry, FsFile, FsPutArgs, Health, Envelope, Message, MessageRow, MessagesQuery,
  Meta, OwedReport, PostMessageArgs, SearchArgs, SearchReport,
} from '@keel/hub-client';

export type {
  Ask, ChannelRow, Envelope, FsEntry, FsFile, Health, Message, MessageRow, Meta, OwedReport, PostMessageArgs,
  SearchHit, SearchReport, SearchSection,
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
  retract_message(channel: string, id: string): Promise<Message>;
  rate_message(channel: string, id: string, value: number, note?: string): Promise<unknown>;
  unrate_message(channel: string, id: string): Promise<unknown>;
  inbox(): Promise<Envelope[]>;
  ack(channel: string, seq: number): Promise<AckResult>;
  owed(): Promise<OwedReport>;
  fs_list(channel: string, prefix?: string): Promise<FsEntry[]>;
  fs_read(channel: string, path: string): Promise<FsFile>;
  fs_put(channel: string, path: string, body: FsPutArgs): Promise<FsFile>;
  fs_delete(channel: string, path: string, expect_version?: number): Promise<unknown>;
  search(args: SearchArgs): Promise<SearchReport>;
}

/** The protocol the client speaks: a hub serving another shows a warning badge, never a refusal. */
export { PROTOCOL as PINNED_PROTOCOL } from '@keel/hub-client';
