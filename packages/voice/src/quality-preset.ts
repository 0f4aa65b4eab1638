/** Quality presets (reference B.4): canonical `low | standard | high` and their accepted aliases. */
import { VoiceError, type QualityPreset } from './contracts.js';

const ALIASES: Record<string, QualityPreset> = {
  low: 'low',
  fast: 'low',
  standard: 'standard',
  balanced: 'standard',
  std: 'standard',
  normal: 'standard',
  default: 'standard',
  medium: 'standard',
  med: 'standard',
  high: 'high',
};

export const QUALITY_PRESETS: readonly QualityPreset[] = ['low', 'standard', 'high'];
export const DEFAULT_QUALITY_PRESET: QualityPreset = 'standard';

/** The canonical preset, or VoiceError 400 "preset must be one of: low|standard|high". */
export function normaliseQualityPreset(value: unknown): QualityPreset {
  const key = typeof value === 'string' ? value.trim().toLowerCase() : '';
  const preset = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
  if (!preset) throw new VoiceError('preset must be one of: low|standard|high', 400, 'invalid_quality_preset');
  return preset;
}
