/** Checks of what a caller may hand the engine: text, speed. Every failure is a VoiceError 400. */
import { VoiceError } from '@keel/voice';

/**
 * The text espeak will read. Control characters become spaces (they mean nothing spoken and some
 * switch espeak's input modes). A leading '-' needs no care: the text reaches espeak through a file,
 * never as an argument, so it cannot become a flag.
 */
export function prepareText(text: unknown, maxChars: number): string {
  if (typeof text !== 'string') throw new VoiceError('The text to speak must be a string.', 400, 'invalid_input');
  if (text.length > maxChars) {
    throw new VoiceError(`The text to speak is ${text.length} characters long; this engine accepts at most ${maxChars}.`, 400, 'input_too_long');
  }
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, ' ');
  if (clean.trim() === '') throw new VoiceError('The text to speak is empty.', 400, 'empty_input');
  return clean;
}

export const NORMAL_WPM = 175;

/** speed 1 is espeak's normal 175 words per minute; 0.5 ≤ speed ≤ 2. */
export function wordsPerMinute(speed: unknown): number {
  const s = speed === undefined ? 1 : speed;
  if (typeof s !== 'number' || !Number.isFinite(s) || s < 0.5 || s > 2) {
    throw new VoiceError('speed must be a number from 0.5 to 2.0.', 400, 'invalid_speed');
  }
  return Math.round(NORMAL_WPM * s);
}
