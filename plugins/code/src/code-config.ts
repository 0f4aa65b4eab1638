/** Settings of the code plugin (README "Settings"): every budget with a safe default. */
import { defineSchemaFor } from '@keel/plugin-sdk';
import type { SandboxSettings } from './sandbox-pool.js';

export interface CodeConfig extends SandboxSettings {
  /** Lets `permissions: full_access` nodes run with Python's full builtins and imports (still inside Pyodide). */
  allowFullAccess: boolean;
  /** Simulate calls one account may have queued or running at once (a 429 past it). */
  maxSimulatePerAccount: number;
}

export const codeConfigSchema = defineSchemaFor<CodeConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    timeoutMs: { type: 'integer', minimum: 10, maximum: 3_600_000, default: 10_000 },
    memoryLimitMb: { type: 'integer', minimum: 64, maximum: 4_000, default: 256 },
    workerHeapMb: { type: 'integer', minimum: 32, maximum: 4_096, default: 256 },
    maxOutputChars: { type: 'integer', minimum: 1_024, maximum: 256 * 1024 * 1024, default: 1024 * 1024 },
    maxWorkers: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
    idleTimeoutMs: { type: 'integer', minimum: 1_000, maximum: 86_400_000, default: 600_000 },
    loadTimeoutMs: { type: 'integer', minimum: 1_000, maximum: 600_000, default: 120_000 },
    interruptGraceMs: { type: 'integer', minimum: 10, maximum: 600_000, default: 2_000 },
    allowFullAccess: { type: 'boolean', default: false },
    maxSimulatePerAccount: { type: 'integer', minimum: 1, maximum: 1_000, default: 2 },
    warmWorkers: { type: 'integer', minimum: 0, maximum: 64, default: 0 },
  },
});
