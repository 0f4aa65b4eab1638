/**
 * Attachments: upload raw bytes (idempotent by content) and serve them so a browser never runs
 * them. The upload body is read here, not by the kernel, so the cap is checked on Content-Length
 * first, then while streaming, and refused with the hub's own sentence.
 */
import { attachmentParams, attachmentUploadQuery } from '@keel/hub-client/wire';
import { badRequest, route, defineSchema, sendFile } from '@keel/plugin-sdk';
import type { Hub } from '../../hub.js';
import { channelParams } from '../../routes/schemas.js';
import type { HubContent } from '../hub-content.js';
import { cleanFilename } from './attachment-store.js';
import { headerSafe, isInlineRaster, SAFE_FALLBACK_TYPE, servedContentType } from './serving-policy.js';

const uploadQuery = defineSchema(attachmentUploadQuery);
const blobParams = defineSchema(attachmentParams);

export function attachmentRoutes(hub: Hub, content: HubContent) {
  return [
    route({
      method: 'POST', path: '/channels/:channel/attachments', auth: hub.auth.seatKey, tags: ['hub'],
      summary: 'Upload an attachment: raw bytes, declared type in Content-Type, ?filename=; idempotent by sha256',
      params: channelParams, query: uploadQuery, bodyKind: 'none',
      handler: async ({ principal: seat, koa, params, query }) => {
        const { channel: c } = hub.memberWriting(seat, params.channel);
        content.checkNotClosed(c, seat);
        const length = koa.get('content-length');
        const declared = headerSafe(koa.get('content-type')).trim() || SAFE_FALLBACK_TYPE;
        if (declared.length > 200) throw badRequest('the declared Content-Type is longer than 200 characters');
        return content.attachments.upload(c.name, seat.id, koa.req, length === '' ? null : Number(length), cleanFilename(query.filename), declared);
      },
    }),
    route({
      method: 'GET', path: '/channels/:channel/attachments/:id', auth: hub.auth.seatKey, tags: ['hub'],
      summary: 'Attachment bytes (served as a download with nosniff and a sandbox CSP; raster images inline; Range, HEAD, If-None-Match)',
      params: blobParams,
      handler: ({ principal: seat, koa, params }) => {
        hub.member(seat, params.channel);
        const row = content.attachments.servable(params.channel, params.id);
        const files = content.attachments.files;
        // Range, HEAD and If-None-Match come with the SDK's file reply; the id is the content hash, a strong ETag.
        return sendFile(koa, {
          root: files.blobs,
          file: files.relativePathOf(row.id),
          contentType: servedContentType(row.content_type),
          disposition: isInlineRaster(row.content_type) ? 'inline' : 'attachment',
          filename: row.filename,
          // Opened directly, the bytes get an opaque origin: no scripts, no access to the hub's origin.
          csp: 'sandbox',
          cacheControl: 'private, max-age=31536000, immutable',
          etag: `"${row.id}"`,
          headers: { 'x-attachment-id': row.id, 'x-declared-content-type': headerSafe(row.content_type) },
          notFoundMessage: `attachment '${row.id}' not found in '${params.channel}'`,
        });
      },
    }),
  ];
}
