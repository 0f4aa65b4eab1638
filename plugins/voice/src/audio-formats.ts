/**
 * Speech output formats and their media types (reference B.15): `wav` (alias `wave`), `mp3`,
 * `flac`, `ogg`, `opus` (in Ogg), `pcm` (raw 16-bit samples, no media type of its own).
 */
import type { AudioFormat } from '@keel/voice';

export const AUDIO_FORMATS: readonly AudioFormat[] = ['wav', 'mp3', 'flac', 'ogg', 'opus', 'pcm'];

const CONTENT_TYPES: Record<AudioFormat, string> = {
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  flac: 'audio/flac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  pcm: 'application/octet-stream',
};

/** The format a client named (`wave` is `wav`), or null when it is none of ours. */
export function parseAudioFormat(value: string): AudioFormat | null {
  const word = value.trim().toLowerCase();
  if (word === 'wave') return 'wav';
  return (AUDIO_FORMATS as readonly string[]).includes(word) ? (word as AudioFormat) : null;
}

export function contentTypeOf(format: AudioFormat): string {
  return CONTENT_TYPES[format];
}
