/** The channel's files: list, read (head or an archived version), write and delete. */
import { fileParams as fileParamsWire, fsDeleteQuery, fsListQuery, fsPutBody, fsReadQuery } from '@keel/hub-client/wire';
import { badRequest, forbidden, route, defineSchema } from '@keel/plugin-sdk';
import { channelParams, fsFileResponses } from '../../routes/schemas.js';
import type { Hub } from '../../hub.js';
import { nowSeconds } from '../../ids.js';
import type { AgentRecord } from '../../records.js';
import type { HubContent } from '../hub-content.js';
import { adminsOf } from '../room-admin.js';
import { checkWrite, toFile } from './channel-fs.js';
import { CHANNEL_PREFIX, requireValidPath, ROOM_CHARTER_PATH } from './fs-paths.js';

/** `*path` arrives percent-decoded by the router (the client encodes each segment). */
const fileParams = defineSchema(fileParamsWire);
const listQuery = defineSchema(fsListQuery);
const readQuery = defineSchema(fsReadQuery);
const deleteQuery = defineSchema(fsDeleteQuery);
const writeBody = defineSchema(fsPutBody);

export function fsRoutes(hub: Hub, content: HubContent) {
  /** A write or delete of a file: the seat, the open channel it belongs to, and the checked path; `channel/...` files are the room administrators'. */
  const fileWrite = (seat: AgentRecord, params: { channel: string; path: string }) => {
    const { channel: c } = hub.memberWriting(seat, params.channel);
    const path = requireValidPath(params.path);
    if (path.startsWith(CHANNEL_PREFIX) && !content.isAdmin(c, seat)) throw forbidden(`'channel/...' files are channel-owned: writable by ${adminsOf(c)}`);
    return { seat, c, path };
  };
  return [
    route({
      method: 'GET', path: '/channels/:channel/fs', auth: hub.auth.seatKey, tags: ['hub'], summary: "The channel's live files (metadata only), optionally under a prefix",
      params: channelParams, query: listQuery,
      handler: ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        return content.fs.list(params.channel, query.prefix);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/fs/*path', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Read a file (the head records a room-charter receipt; ?version=N reads an archived version)',
      params: fileParams, query: readQuery, responses: fsFileResponses,
      handler: async ({ principal: seat, params, query }) => {
        hub.member(seat, params.channel);
        const path = requireValidPath(params.path);
        const v = content.fs.read(params.channel, path, query.version);
        if (path === ROOM_CHARTER_PATH && query.version === undefined) await content.roomCharters.recordRead(params.channel, seat.id, v.version);
        return toFile(v);
      },
    }),
    route({
      method: 'PUT', path: '/channels/:channel/fs/*path', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Write a file (exactly one of content / content_b64); posts an fs audit message',
      params: fileParams, body: writeBody,
      handler: async ({ principal: seat, params, body }) => {
        const { c, path } = fileWrite(seat, params);
        if (path === ROOM_CHARTER_PATH && typeof body.content_b64 === 'string') throw badRequest('charter must be text — send it as content, not content_b64');
        const write = checkWrite(path, body);
        const stored = await hub.writer.run((w) => content.fs.putIn(w, c.name, seat.id, path, write, nowSeconds()));
        return toFile(stored);
      },
    }),
    route({
      method: 'DELETE', path: '/channels/:channel/fs/*path', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Delete a file (a tombstone version; ?expect_version=N); posts an fs audit message',
      params: fileParams, query: deleteQuery,
      handler: async ({ principal: seat, params, query }) => {
        const { c, path } = fileWrite(seat, params);
        if (content.meta(c.name)?.gated_acts?.includes('fs_remove') && !content.isAdmin(c, seat)) {
          throw forbidden(`deleting files in '${c.name}' is a gated act (gated_acts: fs_remove): it is done by ${adminsOf(c)}`);
        }
        const deleted = await hub.writer.run((w) => content.fs.deleteIn(w, c.name, seat.id, path, query.expect_version ?? null, nowSeconds()));
        return { deleted };
      },
    }),
  ];
}
