/** `POST /attachments/upload` (seed §4.6, reference §2.4): one file into a session, multipart, bounded. */
import { badRequest, defineSchema, route, type AnyRoute } from '@keel/plugin-sdk';
import type { ArtifactsConfig } from '../artifact-config.js';
import { metadataOf, ownerRunId, referenceOf } from '../artifact-reference.js';
import type { ArtifactService } from '../artifact-service.js';
import { callerTags } from '../caller-tags.js';
import { FILE_FIELD, readUpload } from '../multipart-upload.js';
import { checkSessionId } from '../session-id.js';
import { uploadResponse } from './response-schemas.js';
import { cleanFilename, cleanSourcePath, resolveContentType } from '../upload-names.js';

/** The form as `/openapi.json` shows it (read and bounded by `readUpload`, not by this schema). */
const uploadForm = defineSchema({
  type: 'object',
  required: ['file', 'session_id'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The file (one per upload).' },
    session_id: { type: 'string', description: 'The conversation the file belongs to.' },
    source_path: { type: 'string', description: 'Member path of a folder upload (relative; no `..`, nothing absolute).' },
    filename: { type: 'string', description: 'A name instead of the uploaded one.' },
    content_type: { type: 'string', description: 'A content type instead of the uploaded one.' },
    tags: { type: 'string', description: 'A JSON object of string tags, e.g. {"shared": "user"}.' },
  },
});

export function uploadRoute(service: ArtifactService, config: ArtifactsConfig, maxBytes: () => number): AnyRoute {
  return route({
    method: 'POST',
    path: '/attachments/upload',
    summary: 'Upload a file into a session (multipart: file, session_id, optional source_path, filename, content_type, tags)',
    description: `multipart/form-data with one file part \`file\`, \`session_id\`, and optionally \`source_path\` (the member path of a folder upload), \`filename\`, \`content_type\`, \`tags\` (JSON object). Limits: the file at most the workspaces setting maxAttachmentBytes (413), at most maxFields fields of maxFieldBytes each.`,
    tags: ['artifacts'],
    auth: 'user',
    body: uploadForm,
    responses: { 200: { schema: uploadResponse } },
    bodyKind: 'multipart-stream',
    handler: async ({ principal, koa }) => {
      const upload = await readUpload(koa.req, principal.account, service.blobs, { maxFileBytes: maxBytes(), maxFields: config.maxFields, maxFieldBytes: config.maxFieldBytes });
      const { fields, file } = upload;
      try {
        const sessionId = checkSessionId(fields.get('session_id'));
        if (!file) throw badRequest(`Attach the file in the form field '${FILE_FIELD}'.`, { code: 'missing_file', field: FILE_FIELD });
        const filename = cleanFilename(fields.get('filename') || file.filename);
        const sourcePath = fields.get('source_path') ? cleanSourcePath(fields.get('source_path')!) : null;
        const record = await service.add(file.blob, {
          account: principal.account,
          session_id: sessionId,
          run_id: null,
          origin: 'upload',
          filename,
          content_type: resolveContentType(filename, fields.get('content_type'), file.mimeType),
          path: `client:${sourcePath ?? filename}`,
          source_path: sourcePath,
          tags: callerTags(fields.get('tags')),
        });
        const ref = referenceOf(record);
        return { ok: true, run_id: ownerRunId(record), artifact: ref, metadata: metadataOf(record), attachment: ref };
      } finally {
        await file?.blob.discard();
      }
    },
  }) as AnyRoute;
}
