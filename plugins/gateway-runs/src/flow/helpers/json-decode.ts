/**
 * Python's JSON decoder (`json.JSONDecoder.raw_decode`): one JSON value from a position, trailing
 * text left alone; like Python it also reads `NaN`, `Infinity` and `-Infinity`, and refuses raw
 * control characters inside strings.
 */
import { defineKey } from '../paths.js';

export interface Decoded {
  value: unknown;
  end: number;
}

class DecodeError extends Error {}


const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** The JSON value starting exactly at `start` (no leading whitespace skipped); throws when there is none. */
export function rawDecode(text: string, start: number): Decoded {
  let pos = start;
  const fail = (what: string): never => {
    throw new DecodeError(`${what} at char ${pos}`);
  };
  const skip = () => {
    WS.lastIndex = pos;
    WS.exec(text);
    pos = WS.lastIndex;
  };
  const value = (depth: number): unknown => {
    if (depth > 1000) fail('too deeply nested');
    const ch = text[pos];
    if (ch === '{') {
      pos += 1;
      const out: Record<string, unknown> = {};
      skip();
      if (text[pos] === '}') {
        pos += 1;
        return out;
      }
      for (;;) {
        if (text[pos] !== '"') fail('Expecting property name enclosed in double quotes');
        const key = string();
        skip();
        if (text[pos] !== ':') fail("Expecting ':' delimiter");
        pos += 1;
        skip();
        defineKey(out, key, value(depth + 1));
        skip();
        if (text[pos] === '}') {
          pos += 1;
          return out;
        }
        if (text[pos] !== ',') fail("Expecting ',' delimiter");
        pos += 1;
        skip();
      }
    }
    if (ch === '[') {
      pos += 1;
      const out: unknown[] = [];
      skip();
      if (text[pos] === ']') {
        pos += 1;
        return out;
      }
      for (;;) {
        skip();
        out.push(value(depth + 1));
        skip();
        if (text[pos] === ']') {
          pos += 1;
          return out;
        }
        if (text[pos] !== ',') fail("Expecting ',' delimiter");
        pos += 1;
      }
    }
    if (ch === '"') return string();
    for (const [word, v] of [['null', null], ['true', true], ['false', false], ['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity]] as const) {
      if (text.startsWith(word, pos)) {
        pos += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return fail('Expecting value');
    pos = NUMBER.lastIndex;
    return Number(m[0]);
  };
  const string = (): string => {
    pos += 1;
    let out = '';
    for (;;) {
      const ch = text[pos];
      if (ch === undefined) fail('Unterminated string starting');
      if (ch === '"') {
        pos += 1;
        return out;
      }
      if (ch! < ' ') fail('Invalid control character');
      if (ch !== '\\') {
        out += ch;
        pos += 1;
        continue;
      }
      const esc = text[pos + 1];
      if (esc === 'u') {
        const hex = text.slice(pos + 2, pos + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('Invalid \\uXXXX escape');
        out += String.fromCharCode(parseInt(hex, 16));
        pos += 6;
      } else if (esc !== undefined && esc in ESCAPES) {
        out += ESCAPES[esc];
        pos += 2;
      } else {
        fail('Invalid \\escape');
      }
    }
  };
  const v = value(0);
  return { value: v, end: pos };
}

/** Python `json.loads`: the whole text (surrounding whitespace allowed) is one JSON value. */
export function jsonLoads(text: string): unknown {
  WS.lastIndex = 0;
  WS.exec(text);
  const { value, end } = rawDecode(text, WS.lastIndex);
  WS.lastIndex = end;
  WS.exec(text);
  if (WS.lastIndex !== text.length) throw new DecodeError(`Extra data at char ${WS.lastIndex}`);
  return value;
}
