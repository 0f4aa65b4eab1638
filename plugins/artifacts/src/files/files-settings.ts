/** Settings of `GET /files/list` (README "Settings"): every bound with a safe default. */
export interface FilesSettings {
  /** The main root listed for an empty `path` (absolute); empty: the gateway OS user's home folder. */
  root: string;
  /** `limit` when absent, and its cap. */
  defaultLimit: number;
  maxLimit: number;
  /** Deepest folder level a recursive listing enters (`max_depth=0` means this). */
  maxDepth: number;
  /** Directory entries looked at per request (listed or not) before the listing stops, truncated. */
  maxEntriesScanned: number;
  /** Wall-clock budget of one listing in milliseconds; past it the listing stops, truncated. */
  timeBudgetMs: number;
}

/** The JSON schema of `files` in the artifacts settings (merged into artifact-config.ts). */
export const filesSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    root: { type: 'string', maxLength: 4096, default: '' },
    defaultLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 200 },
    maxLimit: { type: 'integer', minimum: 1, maximum: 100_000, default: 5000 },
    maxDepth: { type: 'integer', minimum: 1, maximum: 256, default: 50 },
    maxEntriesScanned: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 50_000 },
    timeBudgetMs: { type: 'integer', minimum: 10, maximum: 600_000, default: 3000 },
  },
} as const;
