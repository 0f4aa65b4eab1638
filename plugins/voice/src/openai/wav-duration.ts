/** The length in seconds of a WAV recording (verbose_json's `duration`); 0 when it is not WAV. */
import { wavDurationS } from '@keel/voice';

export function wavDurationSeconds(bytes: Buffer): number {
  return wavDurationS(bytes) ?? 0;
}
