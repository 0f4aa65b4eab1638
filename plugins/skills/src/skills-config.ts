/** Settings of the skills plugin (README "Settings"): every limit with a safe default. */
import { defineSchemaFor } from '@keel/plugin-sdk';

export interface SkillsConfig {
  /** The shelf seeding copies from: null is the one shipped in this package (a distribution may ship its own: an absolute folder with skills/, VERSION and the trust files). */
  bundledShelf: string | null;
  /** Copy Keel's bundled skills into the data dir when the server starts (adds and updates, never overwrites an edit). */
  seedAtStart: boolean;
  /** Skills `GET /skills` lists at most. */
  maxSkills: number;
  /** Files and bytes one skill folder may hold; a larger one is held (`#FALLBACK trust evaluation failed`). */
  maxTreeFiles: number;
  maxTreeBytes: number;
  /** Names one start's `input_data.skills` may ask for; the rest are left out with a `#TRUNCATION` verdict. */
  maxRequested: number;
  /** Characters `read_skill` returns when the call gives no `max_chars`. */
  readDefaultMaxChars: number;
  /** The most `max_chars` a `read_skill` call may ask for (values below 1,000 are raised to 1,000). */
  readMaxChars: number;
}

export const skillsConfigSchema = defineSchemaFor<SkillsConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    bundledShelf: { type: ['string', 'null'], minLength: 1, default: null },
    seedAtStart: { type: 'boolean', default: true },
    maxSkills: { type: 'integer', minimum: 1, maximum: 100_000, default: 500 },
    maxTreeFiles: { type: 'integer', minimum: 1, maximum: 100_000, default: 200 },
    maxTreeBytes: { type: 'integer', minimum: 1024, default: 4 * 1024 * 1024 },
    maxRequested: { type: 'integer', minimum: 1, maximum: 1000, default: 32 },
    readDefaultMaxChars: { type: 'integer', minimum: 1000, default: 16_000 },
    readMaxChars: { type: 'integer', minimum: 1000, default: 200_000 },
  },
});

/** The floor of a `read_skill` call's `max_chars` (reference gateway-surfaces §7.2). */
export const READ_MIN_CHARS = 1000;
