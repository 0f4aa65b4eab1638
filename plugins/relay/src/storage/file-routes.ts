/**
 * `/v1/files` (reference §1.12): upload (multipart, the file in `file`, `purpose` as a query
 * parameter or form field, default `assistants`), list, record, content (the stored type, as an
 * attachment, nosniff, sandboxed) and delete. Ids are checked before any lookup; an unknown one is 404.
 */
import { badRequest, defineSchema, notFound, route, sendFile, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import type { TrafficSink } from '../contracts.js';
import { openExchange } from '../catalog/exchange-records.js';
import type { BodySnapshot } from '../traffic/body-snapshot.js';
import { cleanFilename, contentTypeOf } from './file-names.js';
import type { RelayFiles } from './file-store.js';
import { FILE_FIELD, readFileUpload, type ReceivedUpload } from './file-upload.js';
import { refuseUnlessHosted } from './hosted-only.js';
import { FILE_ID } from './storage-ids.js';

export interface FileRoutesOptions {
  files: RelayFiles;
  hostedEnabled: boolean;
  maxUploadBytes: number;
  auth: RouteAuth;
  traffic: TrafficSink;
}

const PURPOSE = /^[A-Za-z0-9_.-]{1,64}$/;

const uploadQuery = defineSchema({
  type: 'object',
  additionalProperties: false,
  properties: { purpose: { type: 'string', maxLength: 64, description: 'What the file is for (default `assistants`).' } },
});
const uploadForm = defineSchema({
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The file (one per upload).' },
    purpose: { type: 'string', description: 'What the file is for, when not given as the query parameter.' },
  },
});
const idParams = defineSchema({ type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string', maxLength: 256 } } });

function unknownFile(): never {
  throw notFound('There is no local file with this id (GET /v1/files lists them).', { code: 'file_not_found', field: 'params.id' });
}

export function fileRoutes(options: FileRoutesOptions): AnyRoute[] {
  const { files, hostedEnabled, auth, traffic } = options;
  const tags = ['relay'];
  /** The record of a well-formed, known id, else 404 (the id is checked before the store is asked). */
  const recordOf = (id: string) => (FILE_ID.test(id) ? files.get(id) : null) ?? unknownFile();
  return [
    route({
      method: 'POST',
      path: '/files',
      summary: 'Upload a local file (multipart `file`; `purpose` query parameter, default `assistants`)',
      description: 'Streamed to disk. 413 over uploads.maxUploadBytes, when the new total would pass uploads.maxTotalUploadBytes, or when uploads.maxFiles files are stored. Hosted runtime only (501 otherwise).',
      tags,
      auth,
      query: uploadQuery,
      body: uploadForm,
      bodyKind: 'multipart-stream',
      handler: async ({ query, principal, koa }) => {
        const open = (body: Record<string, unknown>) => openExchange(traffic, principal, koa, body as unknown as BodySnapshot);
        let upload: ReceivedUpload;
        try {
          refuseUnlessHosted(hostedEnabled, 'Local files');
          files.checkRoomForOne();
          upload = await readFileUpload(koa.req, files, options.maxUploadBytes);
        } catch (err) {
          return open({ kind: 'multipart_upload', refused: true, bytes: Number(koa.get('content-length')) || 0 }).answer(() => Promise.reject(err));
        }
        const { fields, file } = upload;
        const purpose = query.purpose ?? fields.get('purpose') ?? 'assistants';
        const filename = cleanFilename(file?.filename);
        const contentType = contentTypeOf(filename, file?.mimeType);
        const exchange = open({ kind: 'multipart_upload', filename, purpose, content_type: contentType, bytes: file?.bytes.size ?? 0, sha256: file?.bytes.sha256 ?? null });
        return exchange.answer(async () => {
          try {
            if (!file) throw badRequest(`Attach the file in the form field '${FILE_FIELD}'.`, { code: 'missing_file', field: FILE_FIELD });
            if (!PURPOSE.test(purpose)) throw badRequest('purpose must be 1 to 64 letters, digits, `_`, `-` or `.` (for example `assistants`).', { code: 'invalid_purpose', field: 'query.purpose' });
            return await file.bytes.commit({ filename, contentType, purpose });
          } finally {
            await file?.bytes.discard();
          }
        });
      },
    }),
    route({
      method: 'GET',
      path: '/files',
      summary: 'List the local files, oldest first',
      tags,
      auth,
      handler: ({ principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, 'Local files');
        return { object: 'list', data: files.list() };
      }),
    }),
    route({
      method: 'GET',
      path: '/files/:id',
      summary: 'One local file\'s record',
      tags,
      auth,
      params: idParams,
      handler: ({ params, principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, 'Local files');
        return recordOf(params.id);
      }),
    }),
    route({
      method: 'GET',
      path: '/files/:id/content',
      summary: 'One local file\'s bytes, with its stored content type, as an attachment',
      tags,
      auth,
      params: idParams,
      responses: { 200: { contentType: 'application/octet-stream' } },
      handler: ({ params, principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, 'Local files');
        const record = recordOf(params.id);
        return sendFile(koa, { root: files.folder, file: record.id, contentType: record.content_type, filename: record.filename, notFoundMessage: 'There is no local file with this id (GET /v1/files lists them).' });
      }),
    }),
    route({
      method: 'DELETE',
      path: '/files/:id',
      summary: 'Delete a local file',
      tags,
      auth,
      params: idParams,
      handler: ({ params, principal, koa }) => openExchange(traffic, principal, koa, undefined).answer(async () => {
        refuseUnlessHosted(hostedEnabled, 'Local files');
        const record = recordOf(params.id);
        if (!(await files.delete(record.id))) unknownFile();
        return { id: record.id, object: 'file', deleted: true };
      }),
    }),
  ] as AnyRoute[];
}
