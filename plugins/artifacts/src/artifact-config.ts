/** Settings of the artifacts plugin (README "Settings"): every limit with a safe default. */
import { defineSchemaFor } from '@keel/plugin-sdk';
import { filesSettingsSchema, type FilesSettings } from './files/files-settings.js';

export interface ArtifactsConfig {
  /** Non-file fields one multipart upload may carry. */
  maxFields: number;
  /** Bytes of one non-file field (`session_id`, `source_path`, ...). */
  maxFieldBytes: number;
  /** Rows a list answers when the caller asks for no `limit`, and the cap of `limit`. */
  listDefaultLimit: number;
  listMaxLimit: number;
  /** Hosted user-auth mode (seed §5): import from and export to server paths need an admin. */
  hostedUserAuth: boolean;
  /** `GET /artifacts/search` (search/search-route.ts). */
  search: { defaultLimit: number; maxLimit: number; debugMaxRows: number };
  /** `GET /files/list` (files/files-route.ts). */
  files: FilesSettings;
}

export const artifactsConfigSchema = defineSchemaFor<ArtifactsConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    maxFields: { type: 'integer', minimum: 1, maximum: 1000, default: 16 },
    maxFieldBytes: { type: 'integer', minimum: 256, maximum: 1024 * 1024, default: 8 * 1024 },
    listDefaultLimit: { type: 'integer', minimum: 1, maximum: 10_000, default: 500 },
    listMaxLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 10_000 },
    hostedUserAuth: { type: 'boolean', default: false },
    search: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        defaultLimit: { type: 'integer', minimum: 1, maximum: 10_000, default: 500 },
        maxLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 10_000 },
        debugMaxRows: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 50_000 },
      },
    },
    files: filesSettingsSchema,
  },
});
