/**
 * Model downloads (admin): `POST /models/download`, `GET /models/downloads`,
 * `GET /models/downloads/{id}`, `POST /models/downloads/{id}/cancel`.
 */
import { defineSchema, reply, route } from '@keel/plugin-sdk';
import type { DownloadManager } from './download-manager.js';
import { downloadView } from './download-record.js';

const downloadBody = defineSchema({
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 4096 },
    filename: { type: 'string', minLength: 1, maxLength: 256 },
    folder: { type: 'string', minLength: 1, maxLength: 256 },
    sha256: { type: 'string', pattern: '^[A-Fa-f0-9]{64}$' },
    engine: { type: 'string', enum: ['llama', 'onnx'] },
  },
});

const idParams = defineSchema({ type: 'object', required: ['id'], properties: { id: { type: 'string', minLength: 1, maxLength: 128 } } });

const nullableString = { type: ['string', 'null'] } as const;
const downloadObject = {
  type: 'object',
  required: ['id', 'url', 'filename', 'folder', 'file', 'engine', 'model', 'state', 'bytes', 'total', 'progress', 'attempts', 'sha256', 'sha256_actual', 'error', 'created_at', 'created_by', 'started_at', 'finished_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    filename: { type: 'string' },
    folder: nullableString,
    file: { type: 'string' },
    engine: { type: 'string', enum: ['llama', 'onnx'] },
    model: { type: 'string' },
    state: { type: 'string', enum: ['queued', 'downloading', 'verifying', 'completed', 'failed', 'cancelled'] },
    bytes: { type: 'integer' },
    total: { type: ['integer', 'null'] },
    progress: { type: ['number', 'null'] },
    attempts: { type: 'integer' },
    sha256: nullableString,
    sha256_actual: nullableString,
    error: {
      anyOf: [{ type: 'null' }, { type: 'object', required: ['reason_code', 'message'], properties: { reason_code: { type: 'string' }, message: { type: 'string' } } }],
    },
    created_at: { type: 'string' },
    created_by: { type: 'string' },
    started_at: nullableString,
    finished_at: nullableString,
  },
} as const;
const downloadSchema = defineSchema(downloadObject);
const listSchema = defineSchema({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: downloadObject } } });

export function downloadRoutes(downloads: DownloadManager, modelsDir: string) {
  const view = (r: Parameters<typeof downloadView>[0]) => downloadView(r, modelsDir);
  return [
    route({
      method: 'POST',
      path: '/models/download',
      auth: 'admin',
      tags: ['models'],
      summary: 'Download a GGUF or ONNX model from an http(s) URL into the models folder (queued; 202 with the download)',
      body: downloadBody,
      responses: { 202: { schema: downloadSchema } },
      handler: async ({ body, principal }) => reply(202, view(await downloads.create(body, principal.account))),
    }),
    route({
      method: 'GET',
      path: '/models/downloads',
      auth: 'admin',
      tags: ['models'],
      summary: 'Model downloads, newest first, with their progress',
      responses: { 200: { schema: listSchema } },
      handler: () => ({ items: downloads.list().map(view) }),
    }),
    route({
      method: 'GET',
      path: '/models/downloads/:id',
      auth: 'admin',
      tags: ['models'],
      summary: 'One model download: state, bytes, total, error',
      params: idParams,
      responses: { 200: { schema: downloadSchema } },
      handler: ({ params }) => view(downloads.get(params.id)),
    }),
    route({
      method: 'POST',
      path: '/models/downloads/:id/cancel',
      auth: 'admin',
      tags: ['models'],
      summary: 'Cancel a queued or running download (its partial file is removed)',
      params: idParams,
      responses: { 200: { schema: downloadSchema } },
      handler: async ({ params }) => view(await downloads.cancel(params.id)),
    }),
  ];
}
