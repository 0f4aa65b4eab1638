/**
 * Range bounds for "every key that starts with this prefix" in an LMDB database with lmdb-js's
 * default ordered-binary keys.
 *
 * The usual idiom `{ start: [account], end: [account, '\uffff'] }` is wrong: ordered-binary writes
 * strings as UTF-8, so a component starting with U+FFFF itself or with any character above it (every
 * emoji, U+10000..U+10FFFF) sorts after the end key and drops out of the range. An array key is its
 * components joined by a 0 byte, and no string, number or boolean encodes to a first byte of 0xFF
 * (UTF-8 never uses it), so a raw 0xFF byte as the next component lies above every key of the prefix
 * and below the next prefix. For a string prefix, the bound is that string's own encoding followed by
 * 0xFF: every string starting with it encodes to bytes starting with its encoding (ordered-binary is
 * the encoder lmdb-js itself uses, so the bound is computed exactly as lmdb writes keys).
 *
 * One limit comes from ordered-binary itself: it escapes U+0000..U+0004 only in strings shorter than
 * 64 characters, so a longer component holding one of them can contain a raw 0 byte and sort apart
 * from its neighbours. Ids that may hold control characters should be refused before they become keys.
 */
import type { Key } from 'lmdb';
import { MAXIMUM_KEY, toBufferKey } from 'ordered-binary';

/** One 0xFF byte: no key component starts with it, so it sorts above all of them. */
const ABOVE_EVERY_COMPONENT: Uint8Array = MAXIMUM_KEY;

export interface PrefixRangeOptions {
  /** Walk from the last key of the prefix down to its first. */
  reverse?: boolean;
  /**
   * The last component (or the whole prefix, when it is a string) is the leading part of a string
   * rather than a whole component: `[channel, 'docs/']` covers `[channel, 'docs/a.md', ...]`.
   */
  partial?: boolean;
}

export interface PrefixRange {
  start: Key;
  end: Key;
  reverse?: true;
  inclusiveEnd?: true;
}

/**
 * The exclusive end of the keys starting with `prefix`: an array prefix covers keys whose leading
 * components equal it (and the key equal to it); a string prefix (or an array prefix with
 * `partial`) covers the strings that start with it.
 */
export function prefixEnd(prefix: readonly Key[] | string, options: Pick<PrefixRangeOptions, 'partial'> = {}): Key {
  if (typeof prefix === 'string') return stringPrefixEnd(prefix);
  if (!options.partial) return [...prefix, ABOVE_EVERY_COMPONENT];
  const last = prefix[prefix.length - 1];
  if (typeof last !== 'string') throw new TypeError('prefixEnd: a partial prefix must end with a string');
  return [...prefix.slice(0, -1), stringPrefixEnd(last)];
}

/**
 * `{start, end}` (or, with `reverse`, `{start: end, end: start, reverse: true, inclusiveEnd: true}`:
 * a reverse walk stops before its end key, and the prefix itself may be a stored key) covering every
 * key that starts with `prefix`; spread it into getRange/getKeys/getKeysCount with `limit` and the like.
 */
export function prefixRange(prefix: readonly Key[] | string, options: PrefixRangeOptions = {}): PrefixRange {
  const start: Key = typeof prefix === 'string' ? prefix : [...prefix];
  const end = prefixEnd(prefix, options);
  return options.reverse ? { start: end, end: start, reverse: true, inclusiveEnd: true } : { start, end };
}

/** The empty string starts every string: the bound is then above every component. */
function stringPrefixEnd(text: string): Uint8Array {
  if (text === '') return ABOVE_EVERY_COMPONENT;
  const encoded = toBufferKey(text);
  const end = new Uint8Array(encoded.length + 1);
  end.set(encoded);
  end[encoded.length] = 0xff;
  return end;
}
