import type { FolderQuota } from './folder-quota.js';

/**
 * The budgets of the file tools (gateway-runs setting `workspace`): how large a file a tool reads
 * or writes, and how long and how large one `tool_calls` step may get. A file over a size limit is a
 * refusal the model reads, as is a write over the run folder's quota; a step over its time or size budget fails with the reason recorded.
 */
export interface ToolLimits extends FolderQuota {
  /** A file larger than this is not read (read_file, edit_file). */
  maxReadBytes: number;
  /** Content larger than this is not written (write_file, the result of edit_file). */
  maxWriteBytes: number;
  /** A `tool_calls` step that takes longer fails. */
  stepTimeoutMs: number;
  /** A `tool_calls` step whose results grow larger (JSON bytes) fails. */
  maxResultBytes: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = {
  maxReadBytes: 1024 * 1024,
  maxWriteBytes: 1024 * 1024,
  stepTimeoutMs: 30_000,
  maxResultBytes: 1024 * 1024,
  maxFolderBytes: 64 * 1024 * 1024,
  maxFolderEntries: 10_000,
  maxPathDepth: 32,
};

/** A step over its time or size budget: permanent (retrying it would do the same). */
export class ToolBudgetError extends Error {
  readonly code = 'tool_budget_exceeded';
}
