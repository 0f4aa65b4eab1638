/**
 * Attachments: upload raw bytes (idempotent by content) and serve them so a browser never runs
 * them. The upload body is read here, not by the kernel, so the cap is checked on Content-Length
 * first, then while streaming, and refused with the hub's own sentence.
 */
import { badRequest, reply, route, schema } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { channelParams } from '../../routes/schemas.js';
import type { HubContent } from '../hub-content.js';
import { cleanFilename } from './attachment-store.js';
import { contentDisposition, headerSafe, isInlineRaster, SAFE_FALLBACK_TYPE, servedContentType } from './serving-policy.js';

const uploadQuery = schema<{ filename?: string }>({ type: 'object', properties: { filename: { type: 'string' } } });
const blobParams = schema<{ channel: string; id: string }>({
  type: 'object', required: ['channel', 'id'], properties: { channel: { type: 'string', minLength: 1, maxLength: 200 }, id: { type: 'string' } },
});

export function attachmentRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'POST', path: '/channels/:channel/attachments', auth: 'none', tags: ['hub'],
      summary: 'Upload an attachment: raw bytes, declared type in Content-Type, ?filename=; idempotent by sha256',
      params: channelParams, query: uploadQuery, bodyKind: 'none',
      handler: async ({ koa, params, query }) => {
        const { seat, channel: c } = hub.memberWriting(koa, params.channel);
        content.checkNotClosed(c, seat);
        const length = koa.get('content-length');
        const declared = headerSafe(koa.get('content-type')).trim() || SAFE_FALLBACK_TYPE;
        if (declared.length > 200) throw badRequest('the declared Content-Type is longer than 200 characters');
        return content.attachments.upload(c.name, seat.id, koa.req, length === '' ? null : Number(length), cleanFilename(query.filename), declared);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/attachments/:id', auth: 'none', tags: ['hub'],
      summary: 'Attachment bytes (served as a download with nosniff and a sandbox CSP; raster images inline)',
      params: blobParams,
      handler: ({ koa, params }) => {
        hub.member(koa, params.channel);
        const row = content.attachments.servable(params.channel, params.id);
        return reply(200, content.attachments.files.open(row.id), {
          'content-type': servedContentType(row.content_type),
          'content-length': String(row.size),
          'content-disposition': contentDisposition(row.filename, isInlineRaster(row.content_type)),
          'x-content-type-options': 'nosniff',
          // Opened directly, the bytes get an opaque origin: no scripts, no access to the hub's origin.
          'content-security-policy': 'sandbox',
          'cache-control': 'private, max-age=31536000, immutable',
          'x-attachment-id': row.id,
          'x-declared-content-type': headerSafe(row.content_type),
        });
      },
    }),
  ];
}
