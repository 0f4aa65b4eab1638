// Request bodies and queries shaped from a HubClient method's arguments, where the method does more
// than pass them on: defaults filled in, undefined members dropped, aliases merged.

import type { QueryValue } from './paths.js';
import type { CreateGroupArgs } from './types/channels.js';
import type { UploadOptions } from './types/files.js';
import type { BlockOptions, DelegationOptions } from './types/governance.js';
import type { JsonObject } from './types/json.js';
import type { SendDmArgs } from './types/messages.js';
import type { SearchArgs } from './types/search.js';
import type { BlockBody, CreateGroupBody, GrantDelegationBody, PostMessageBody } from './wire/index.js';

/** A plain copy of `record` without its undefined members (null is kept: it means something to the hub). */
export function defined<T extends object>(record: T): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) if (value !== undefined) out[key] = value;
  return out;
}

/** `POST /groups`: a blank opening post falls back to the purpose; private unless told otherwise. */
export function groupBody(args: CreateGroupArgs): CreateGroupBody {
  const opening = args.opening_post && args.opening_post.trim() !== '' ? args.opening_post : args.purpose;
  return { name: args.name, members: args.members, purpose: args.purpose, opening_post: opening, private: args.private !== false };
}

/** `POST /dms/{peer}/messages`: status defaults to `open`. */
export function dmBody(args: SendDmArgs): JsonObject {
  return defined<PostMessageBody>({ body: args.body, title: args.title, status: args.status ?? 'open', data: args.data });
}

/** The direct message that delivers a single-use invite token (`fyi`, token in the body and in `data.invite_token`). */
export function inviteDm(channel: string, invite_token: string): SendDmArgs {
  return {
    title: `invite to ${channel}`,
    body: `You are invited to '${channel}'. Join it with this single-use invite token: ${invite_token}`,
    status: 'fyi',
    data: { invite_token, channel },
  };
}

/** A channel or hub-wide block: `seconds` omitted or null = ban, else a timed kick. */
export function blockBody(agent: string, options: BlockOptions): JsonObject {
  return defined<BlockBody>({ agent, seconds: options.seconds, reason: options.reason });
}

/** `PUT /admin/delegation`: ttl null = the hub default (7 days), note empty unless given. */
export function delegationBody(agent_id: string, powers: string[], options: DelegationOptions): GrantDelegationBody {
  return { agent_id, powers, ttl_seconds: options.ttl_seconds ?? null, note: options.note ?? '' };
}

/** An upload's file name (the option, the File's own name, else `file`) and declared type (else `application/octet-stream`). */
export function uploadTarget(file: Blob | Uint8Array, options: UploadOptions): { filename: string; content_type: string } {
  const isBlob = typeof Blob !== 'undefined' && file instanceof Blob;
  const ownName = (file as { name?: unknown }).name;
  const filename = options.filename || (typeof ownName === 'string' && ownName !== '' ? ownName : 'file');
  const content_type = options.content_type || (isBlob ? (file as Blob).type : '') || 'application/octet-stream';
  return { filename, content_type };
}

/** `GET /search`: `q` always sent (may be empty with `rated`), `channel` and `channels` merged into one repeated `channel`. */
export function searchQuery(args: SearchArgs): Record<string, QueryValue> {
  const channels = [
    ...(Array.isArray(args.channel) ? args.channel : args.channel ? [args.channel] : []),
    ...(args.channels ?? []),
  ];
  return {
    q: args.q ?? '',
    channel: channels.length ? channels : undefined,
    kind: args.kind || undefined,
    sender: args.sender || undefined,
    ref: args.ref || undefined,
    since: args.since,
    until: args.until,
    limit: args.limit,
    cursor: args.cursor || undefined,
    sort: args.sort || undefined,
    rated: args.rated || undefined,
    min_votes: args.min_votes,
  };
}
