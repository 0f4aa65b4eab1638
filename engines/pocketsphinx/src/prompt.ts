/**
 * Reading a transcription request's `prompt` as a recognition mode. Two forms select a mode; any other
 * prompt (free text meant for remote engines) leaves the default language model in charge:
 *
 *   grammar: turn the lights on | turn the lights off | open the door
 *   keywords: lights, open the door
 *
 * Phrases are separated by `|` or new lines (grammar) and by `,`, `|` or new lines (keywords). Every
 * word must be in the pronunciation dictionary and made of letters, digits, `'`, `.` or `-`; the JSGF
 * grammar and keyword file are written by this engine from those words alone, so a prompt cannot add
 * rules, weights, imports or thresholds of its own.
 */
import { VoiceError } from '@keel/voice';

export type RecognitionMode =
  | { mode: 'lm' }
  | { mode: 'grammar'; phrases: string[][] }
  | { mode: 'keywords'; phrases: string[][] };

export interface PromptLimits {
  maxPromptChars: number;
  maxPhrases: number;
  maxWordsPerPhrase: number;
}

const WORD = /^[a-z0-9'][a-z0-9'.-]*$/;

export function parsePrompt(prompt: string | undefined, limits: PromptLimits): RecognitionMode {
  if (prompt === undefined) return { mode: 'lm' };
  if (typeof prompt !== 'string') throw new VoiceError('prompt must be a string.', 400, 'invalid_prompt');
  if (prompt.length > limits.maxPromptChars) {
    throw new VoiceError(`The prompt is ${prompt.length} characters long; at most ${limits.maxPromptChars} are accepted.`, 400, 'invalid_prompt');
  }
  const m = /^\s*(grammar|keywords)\s*:([\s\S]*)$/i.exec(prompt);
  if (!m) return { mode: 'lm' };
  const mode = m[1]!.toLowerCase() as 'grammar' | 'keywords';
  const separator = mode === 'grammar' ? /[|\n]/ : /[|,\n]/;
  const phrases = m[2]!.split(separator).map((p) => p.trim()).filter((p) => p !== '').map((p) => p.toLowerCase().split(/\s+/));
  if (phrases.length === 0) throw new VoiceError(`The ${mode} prompt names no phrase; write e.g. '${mode}: turn the lights on | open the door'.`, 400, 'invalid_prompt');
  if (phrases.length > limits.maxPhrases) throw new VoiceError(`The ${mode} prompt has ${phrases.length} phrases; at most ${limits.maxPhrases} are accepted.`, 400, 'invalid_prompt');
  for (const words of phrases) {
    if (words.length > limits.maxWordsPerPhrase) {
      throw new VoiceError(`A ${mode} phrase has ${words.length} words; at most ${limits.maxWordsPerPhrase} are accepted.`, 400, 'invalid_prompt');
    }
    for (const w of words) {
      if (!WORD.test(w)) throw new VoiceError(`The ${mode} word '${clip(w)}' has characters other than letters, digits, ', . and -.`, 400, 'invalid_prompt');
    }
  }
  return { mode, phrases };
}

/** Refuses words the dictionary does not know (pocketsphinx would fail or ignore them silently). */
export function checkWords(mode: RecognitionMode, dictionary: Map<string, number>): void {
  if (mode.mode === 'lm') return;
  const unknown = [...new Set(mode.phrases.flat().filter((w) => !dictionary.has(w)))];
  if (unknown.length > 0) {
    const list = unknown.slice(0, 5).map((w) => `'${clip(w)}'`).join(', ');
    throw new VoiceError(`The pronunciation dictionary does not know ${list}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ''}.`, 400, 'unknown_word');
  }
}

/** A JSGF grammar with one public rule: exactly one of the phrases. */
export function jsgf(phrases: string[][]): string {
  const alternatives = [...new Set(phrases.map((p) => p.join(' ')))].join(' | ');
  return `#JSGF V1.0;\ngrammar keel;\npublic <utterance> = ${alternatives};\n`;
}

/**
 * A keyword file: one key phrase per line with its detection threshold. Longer phrases score lower, so
 * the threshold is 10^-(perPhone × phones), clamped to 1e-5 … 1e-50 (pocketsphinx's advice: short
 * phrases near 1e-5, long ones down to 1e-50).
 */
export function keywordFile(phrases: string[][], dictionary: Map<string, number>, perPhone: number): string {
  const lines = [...new Set(phrases.map((p) => p.join(' ')))].map((phrase) => {
    const phones = phrase.split(' ').reduce((n, w) => n + (dictionary.get(w) ?? 1), 0);
    const exponent = Math.min(50, Math.max(5, perPhone * phones));
    return `${phrase} /${(10 ** -exponent).toExponential(4)}/`;
  });
  return lines.join('\n') + '\n';
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
