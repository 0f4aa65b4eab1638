/** The scheduler's settings (`scheduler.*` of the plugin's config; documented in the README's `## Scheduler`). */
export interface SchedulerSettings {
  /** Longest sleep between two looks at the wake index (ms); a command accepted by another process is seen within it. */
  pollMs: number;
  /** Policy `all`: the most missed ticks one automation catches up; older ones are recorded skipped. */
  maxCatchUp: number;
  /** Admissions (first attempts and retries) across all automations per second: no stampede after downtime. */
  maxAdmissionsPerSecond: number;
  /** Policy `skip`: a tick at most this late (ms) still fires; a later one is recorded skipped. */
  misfireGraceMs: number;
  /** Due automations read from the wake index per look. */
  batchSize: number;
  /** Event fires one automation keeps queued while its occurrence runs; a further event is dropped (and logged). */
  maxPendingEvents: number;
}

export const SCHEDULER_DEFAULTS: SchedulerSettings = {
  pollMs: 1000,
  maxCatchUp: 10,
  maxAdmissionsPerSecond: 200,
  misfireGraceMs: 60_000,
  batchSize: 500,
  maxPendingEvents: 20,
};

/** The JSON schema of `scheduler` in the plugin's config (defaults applied by the kernel). */
export const schedulerConfigSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    pollMs: { type: 'integer', minimum: 5, maximum: 60_000, default: SCHEDULER_DEFAULTS.pollMs },
    maxCatchUp: { type: 'integer', minimum: 1, maximum: 10_000, default: SCHEDULER_DEFAULTS.maxCatchUp },
    maxAdmissionsPerSecond: { type: 'integer', minimum: 1, maximum: 100_000, default: SCHEDULER_DEFAULTS.maxAdmissionsPerSecond },
    misfireGraceMs: { type: 'integer', minimum: 0, maximum: 86_400_000, default: SCHEDULER_DEFAULTS.misfireGraceMs },
    batchSize: { type: 'integer', minimum: 1, maximum: 100_000, default: SCHEDULER_DEFAULTS.batchSize },
    maxPendingEvents: { type: 'integer', minimum: 1, maximum: 10_000, default: SCHEDULER_DEFAULTS.maxPendingEvents },
  },
} as const;
