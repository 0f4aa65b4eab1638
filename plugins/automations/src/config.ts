/**
 * The automations plugin's settings (config key `automations` in the Keel config), each with a safe
 * default. `scheduler` is the engine's; `limits` bound what a client may store or ask for.
 */
import { defineSchemaFor } from '@keel/plugin-sdk';
import { DEFAULT_DISCUSSION_SETTINGS, type DiscussionSettings } from './discuss/discussions.js';
import { schedulerConfigSchema, type SchedulerSettings } from './engine/scheduler-settings.js';

export interface AutomationLimits {
  /** Automations an account may have that are not archived (archived ones are kept, not counted). */
  maxAutomationsPerAccount: number;
  /** Characters of a `request_id` or a `command_id`. */
  maxIdLength: number;
  /** Bytes of a stored definition's `target.input_data` (as JSON). */
  maxInputDataBytes: number;
  /** Largest page of `GET /automations`, occurrences, attention and revisions (`limit` 1..this). */
  maxPageSize: number;
  /** The page size when `limit` is omitted. */
  defaultPageSize: number;
  /** Automations read to fill one listing page (a status filter skips the others); the page ends early past it. */
  maxListScan: number;
}

export interface AutomationsConfig {
  limits: AutomationLimits;
  scheduler: SchedulerSettings;
  discussion: DiscussionSettings;
}

export const DEFAULT_LIMITS: AutomationLimits = {
  maxAutomationsPerAccount: 200,
  maxIdLength: 200,
  maxInputDataBytes: 256 * 1024,
  maxPageSize: 200,
  defaultPageSize: 50,
  maxListScan: 10_000,
};

export const automationsConfigSchema = defineSchemaFor<AutomationsConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxAutomationsPerAccount: { type: 'integer', minimum: 1, default: DEFAULT_LIMITS.maxAutomationsPerAccount },
        maxIdLength: { type: 'integer', minimum: 16, maximum: 1000, default: DEFAULT_LIMITS.maxIdLength },
        maxInputDataBytes: { type: 'integer', minimum: 1024, default: DEFAULT_LIMITS.maxInputDataBytes },
        maxPageSize: { type: 'integer', minimum: 1, maximum: 10_000, default: DEFAULT_LIMITS.maxPageSize },
        defaultPageSize: { type: 'integer', minimum: 1, maximum: 10_000, default: DEFAULT_LIMITS.defaultPageSize },
        maxListScan: { type: 'integer', minimum: 1, default: DEFAULT_LIMITS.maxListScan },
      },
    },
    // The engine's settings; their schema and defaults live with the engine (engine/scheduler-settings.ts).
    scheduler: schedulerConfigSchema,
    discussion: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxTokens: { type: 'integer', minimum: 1, maximum: 10_000_000, default: DEFAULT_DISCUSSION_SETTINGS.maxTokens, description: "A discussion's history window in estimated tokens (its seed and its later turns); a growing automation's context.growing.max_tokens wins" },
        maxTurnsRead: { type: 'integer', minimum: 1, maximum: 1_000_000, default: DEFAULT_DISCUSSION_SETTINGS.maxTurnsRead, description: "The most turns of a discussion one later turn's replay reads, newest first" },
      },
    },
  },
});
