/** Charters: the hub charter (read with a receipt; an operator replaces it) and a room's charter. */
import { charterReadQuery, charterReplaceBody } from '@keel/hub-client/wire';
import { notFound, route, defineSchema } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { ADMIN_PRINCIPAL } from '../../identity/seat-auth.js';
import { operatorAct } from '../../routes/operator-act.js';
import { channelParams } from '../../routes/schemas.js';
import { ROOM_CHARTER_PATH } from '../fs/fs-paths.js';
import type { HubContent } from '../hub-content.js';

const readQuery = defineSchema(charterReadQuery);
const replaceBody = defineSchema(charterReplaceBody);

export function charterRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'GET', path: '/charter', auth: hub.auth.seatKey, tags: ['hub'], summary: "The hub charter, cut for the seat's roles (full=true for all of it); records the seat's receipt",
      query: readQuery,
      handler: ({ principal: seat, query }) => content.hubCharter.read(seat, query.full),
    }),
    route({
      method: 'PUT', path: '/charter', auth: hub.auth.seatOrAdminKey, tags: ['hub'], summary: 'Replace the hub charter (operator or admin key): the next version',
      body: replaceBody,
      handler: operatorAct('replacing the hub charter is an operator act', async (actor, { body }) => {
        const v = await content.hubCharter.replace(body.text, actor.id, actor !== ADMIN_PRINCIPAL);
        return { scope: 'hub', version: v.version, text: v.text, updated_by: v.updated_by, updated_at: v.updated_at, packaged: false, bytes: Buffer.byteLength(v.text) };
      }),
    }),
    route({
      method: 'GET', path: '/channels/:channel/charter', auth: hub.auth.seatKey, tags: ['hub'], summary: "The room charter (channel/charter.md); records the reader's receipt",
      params: channelParams,
      handler: async ({ principal: seat, params }) => {
        hub.member(seat, params.channel);
        const doc = await content.roomCharters.read(params.channel, seat);
        if (!doc) throw notFound(`file '${ROOM_CHARTER_PATH}' not found in '${params.channel}'`);
        return doc;
      },
    }),
  ];
}
