/** The language-name table (reference B.2: 32 languages; `get_language_name` falls back to the code). */

export const LANGUAGE_NAMES: Readonly<Record<string, string>> = Object.freeze({
  en: 'English',
  fr: 'French',
  de: 'German',
  es: 'Spanish',
  it: 'Italian',
  pt: 'Portuguese',
  nl: 'Dutch',
  ru: 'Russian',
  zh: 'Chinese',
  ja: 'Japanese',
  ko: 'Korean',
  ar: 'Arabic',
  hi: 'Hindi',
  tr: 'Turkish',
  pl: 'Polish',
  sv: 'Swedish',
  da: 'Danish',
  no: 'Norwegian',
  fi: 'Finnish',
  cs: 'Czech',
  el: 'Greek',
  he: 'Hebrew',
  hu: 'Hungarian',
  id: 'Indonesian',
  ms: 'Malay',
  th: 'Thai',
  vi: 'Vietnamese',
  uk: 'Ukrainian',
  ro: 'Romanian',
  bg: 'Bulgarian',
  ca: 'Catalan',
  fa: 'Persian',
});

/** The display name of a language code, else the code itself. */
export function languageName(code: string): string {
  const key = code.trim().toLowerCase();
  return Object.hasOwn(LANGUAGE_NAMES, key) ? LANGUAGE_NAMES[key]! : code;
}

/** Lower-cased, trimmed; language codes are compared this way everywhere. */
export function normaliseLanguage(code: string): string {
  return code.trim().toLowerCase();
}
