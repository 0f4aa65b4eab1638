/** TTS delivery modes (reference B.5): how speech is handed out, whole (`buffered`) or in segments (`streamed`). */
import { VoiceError } from './contracts.js';
import { echoInput } from './echo-input.js';

export type DeliveryMode = 'buffered' | 'streamed';

const BUFFERED = new Set(['buffered', 'full', 'wav', 'file', 'off', 'false', '0']);
const STREAMED = new Set(['streamed', 'stream', 'chunks', 'chunked', 'on', 'true', '1']);

/**
 * Normalises a delivery mode: the B.5 aliases, booleans (true → streamed). An empty value raises
 * "mode must be non-empty"; anything else "Unsupported delivery mode: '<x>' (expected buffered|streamed)".
 */
export function normaliseDeliveryMode(value: unknown): DeliveryMode {
  if (typeof value === 'boolean') return value ? 'streamed' : 'buffered';
  if (typeof value === 'number' && (value === 0 || value === 1)) return value === 1 ? 'streamed' : 'buffered';
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (text === '') throw new VoiceError('mode must be non-empty', 400, 'invalid_delivery_mode');
  if (BUFFERED.has(text)) return 'buffered';
  if (STREAMED.has(text)) return 'streamed';
  throw new VoiceError(`Unsupported delivery mode: '${echoInput(value)}' (expected buffered|streamed)`, 400, 'invalid_delivery_mode');
}

/** `{override, base, clone}` of `getTtsDeliveryModes` (reference B.2). */
export interface DeliveryModes {
  override: DeliveryMode | null;
  base: DeliveryMode;
  clone: DeliveryMode;
}

/** Base defaults to buffered; clone follows `clonedTtsStreaming`; an override wins for both. */
export function deliveryModes(override: DeliveryMode | null, clonedTtsStreaming: boolean): DeliveryModes {
  return {
    override,
    base: override ?? 'buffered',
    clone: override ?? (clonedTtsStreaming ? 'streamed' : 'buffered'),
  };
}
