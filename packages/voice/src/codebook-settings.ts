/**
 * Codebook generation settings of the instruction-capable engine (seed §2B, reference B.1 [newer]):
 * predictor `auto|reference`, sampler `multinomial|exponential`. Invalid values are refused before any
 * engine is built. No Keel engine reads them yet; the manager keeps and reports them so a host can
 * validate and show them (the web example's codebook route).
 */
import { VoiceError } from './contracts.js';

export type CodebookPredictor = 'auto' | 'reference';
export type CodebookSampler = 'multinomial' | 'exponential';

export interface CodebookSettings {
  predictor: CodebookPredictor;
  sampler: CodebookSampler;
}

export const DEFAULT_CODEBOOK: CodebookSettings = { predictor: 'auto', sampler: 'multinomial' };

/** Validates both values first, then answers the merged settings (nothing changes on a refusal). */
export function mergeCodebook(current: CodebookSettings, change: { predictor?: string | null; sampler?: string | null }): CodebookSettings {
  const predictor = change.predictor === undefined || change.predictor === null ? current.predictor : change.predictor.trim().toLowerCase();
  const sampler = change.sampler === undefined || change.sampler === null ? current.sampler : change.sampler.trim().toLowerCase();
  if (predictor !== 'auto' && predictor !== 'reference') throw new VoiceError(`predictor must be one of auto, reference (got: ${String(change.predictor)})`, 400, 'invalid_codebook');
  if (sampler !== 'multinomial' && sampler !== 'exponential') throw new VoiceError(`sampler must be one of multinomial, exponential (got: ${String(change.sampler)})`, 400, 'invalid_codebook');
  return { predictor, sampler };
}
