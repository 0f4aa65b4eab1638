/**
 * How much one run may write to its ledger (settings of the ledger plugin). A record over
 * `maxRecordBytes` is refused, and so is any record once the run's ledger holds `maxRunBytes`;
 * the records that end a run are exempt from the second, so a run stopped by it still ends.
 */
import { formatBytes } from '@keel/plugin-sdk';

export interface LedgerLimits {
  /** The largest record the ledger stores, measured as JSON text. */
  maxRecordBytes: number;
  /** The most record bytes one run's ledger holds. */
  maxRunBytes: number;
}

export const DEFAULT_LEDGER_LIMITS: LedgerLimits = { maxRecordBytes: 4 * 1024 * 1024, maxRunBytes: 128 * 1024 * 1024 };

/** A record the ledger refused because of one of its limits; the message names the limit and its setting. */
export class LedgerLimitError extends Error {
  constructor(readonly limit: keyof LedgerLimits, message: string) {
    super(message);
    this.name = 'LedgerLimitError';
  }
}

export function recordTooLarge(nodeId: string, limits: LedgerLimits): LedgerLimitError {
  return new LedgerLimitError('maxRecordBytes', `The ledger record of node '${nodeId}' is larger than ${formatBytes(limits.maxRecordBytes)}, the largest record a run may write (setting \`maxRecordBytes\` of the ledger plugin).`);
}

export function runLedgerFull(runId: string, limits: LedgerLimits): LedgerLimitError {
  return new LedgerLimitError('maxRunBytes', `Run ${runId} has written ${formatBytes(limits.maxRunBytes)} to its ledger, the most one run may write (setting \`maxRunBytes\` of the ledger plugin).`);
}
