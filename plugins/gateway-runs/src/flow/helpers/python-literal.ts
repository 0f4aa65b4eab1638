/**
 * Python's `ast.literal_eval` for the values models write when asked for JSON: single- or
 * double-quoted (and adjacent) strings with escapes, numbers, `True`/`False`/`None`, lists, tuples
 * and sets (as lists), dicts. What it cannot read throws with a Python-like message.
 */
import { defineKey } from '../paths.js';
import { pythonStr } from '../python-text.js';

export class LiteralError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };

export function literalEval(source: string): unknown {
  const text = source.replace(/^[ \t]+/, '');
  let pos = 0;
  const syntax = (): never => {
    throw new LiteralError(`invalid syntax (<unknown>, line ${text.slice(0, pos).split('\n').length})`);
  };
  // Inside brackets newlines are whitespace; comments run to the end of the line.
  const skip = (multiline: boolean) => {
    const ws = multiline ? /(?:[ \t\r\n\f]|\\\n|#[^\n]*)*/y : /(?:[ \t\f]|\\\n|#[^\n]*)*/y;
    ws.lastIndex = pos;
    ws.exec(text);
    pos = ws.lastIndex;
  };
  const value = (depth: number, multiline: boolean): unknown => {
    if (depth > 200) throw new LiteralError('maximum recursion depth exceeded');
    skip(multiline);
    const ch = text[pos];
    if (ch === '[' || ch === '(' || ch === '{') return container(ch, depth);
    if (ch === '-' || ch === '+') {
      pos += 1;
      skip(multiline);
      const operand = value(depth + 1, multiline);
      if (typeof operand !== 'number') throw new LiteralError('malformed node or string');
      return ch === '-' ? -operand : operand;
    }
    const str = /(?:[rRuU]|[bB][rR]?|[rR][bB])?(?='|")/y;
    str.lastIndex = pos;
    if (str.exec(text)) {
      let out = '';
      while (str.lastIndex = pos, str.exec(text)) {
        out += stringLiteral();
        skip(multiline);
      }
      return out;
    }
    const number = /(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d[\d_]*)?)(?![\w.])/y;
    number.lastIndex = pos;
    const n = number.exec(text);
    if (n) {
      pos = number.lastIndex;
      const raw = n[0].replace(/_/g, '');
      return Number(raw);
    }
    const name = /[A-Za-z_]\w*/y;
    name.lastIndex = pos;
    const word = name.exec(text);
    if (word) {
      pos = name.lastIndex;
      if (word[0] === 'True') return true;
      if (word[0] === 'False') return false;
      if (word[0] === 'None') return null;
      throw new LiteralError(`malformed node or string on line 1: <ast.Name object>`);
    }
    return syntax();
  };
  const stringLiteral = (): string => {
    const prefix = /^[a-zA-Z]*/.exec(text.slice(pos, pos + 2))![0];
    const raw = /r/i.test(prefix);
    pos += prefix.length;
    const quote = text.startsWith(text[pos]!.repeat(3), pos) ? text[pos]!.repeat(3) : text[pos]!;
    pos += quote.length;
    let out = '';
    for (;;) {
      if (pos >= text.length) syntax();
      if (text.startsWith(quote, pos)) {
        pos += quote.length;
        return out;
      }
      const ch = text[pos]!;
      if (ch === '\n' && quote.length === 1) syntax();
      if (ch !== '\\') {
        out += ch;
        pos += 1;
        continue;
      }
      const esc = text[pos + 1] ?? '';
      if (raw) {
        out += ch + esc;
        pos += 2;
        continue;
      }
      if (esc in SIMPLE_ESCAPES) {
        out += SIMPLE_ESCAPES[esc];
        pos += 2;
        continue;
      }
      const hexLength = esc === 'x' ? 2 : esc === 'u' ? 4 : esc === 'U' ? 8 : 0;
      if (hexLength) {
        const hex = text.slice(pos + 2, pos + 2 + hexLength);
        if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) throw new LiteralError(`(unicode error) 'unicodeescape' codec can't decode bytes: truncated \\${esc} escape`);
        out += String.fromCodePoint(parseInt(hex, 16));
        pos += 2 + hexLength;
        continue;
      }
      const octal = /^[0-7]{1,3}/.exec(text.slice(pos + 1, pos + 4));
      if (octal) {
        out += String.fromCodePoint(parseInt(octal[0], 8));
        pos += 1 + octal[0].length;
        continue;
      }
      // An unknown escape keeps its backslash, as Python does.
      out += ch;
      pos += 1;
    }
  };
  const container = (open: string, depth: number): unknown => {
    const close = open === '[' ? ']' : open === '(' ? ')' : '}';
    pos += 1;
    const items: unknown[] = [];
    const entries: Array<[unknown, unknown]> = [];
    let isDict = false;
    let sawComma = false;
    for (;;) {
      skip(true);
      if (text[pos] === close) {
        pos += 1;
        break;
      }
      const item = value(depth + 1, true);
      skip(true);
      if (open === '{' && (entries.length > 0 || items.length === 0) && text[pos] === ':') {
        isDict = true;
        pos += 1;
        entries.push([item, value(depth + 1, true)]);
        skip(true);
      } else if (isDict) {
        syntax();
      } else {
        items.push(item);
      }
      if (text[pos] === ',') {
        pos += 1;
        sawComma = true;
        continue;
      }
      skip(true);
      if (text[pos] !== close) syntax();
      pos += 1;
      break;
    }
    if (isDict) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of entries) {
        if (k !== null && typeof k === 'object') throw new LiteralError("unhashable type: 'list'");
        defineKey(out, pythonStr(k), v);
      }
      return out;
    }
    if (open === '{' && items.length === 0) return {};
    // `(x)` without a comma is just `x`; a tuple or a set becomes a list.
    if (open === '(' && items.length === 1 && !sawComma) return items[0];
    return items;
  };
  const result = value(0, false);
  skip(false);
  if (text.slice(pos).trim() !== '') syntax();
  return result;
}
