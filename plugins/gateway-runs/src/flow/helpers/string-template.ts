/**
 * `string_template` (reference runtime-nodes §3.2): `{{ path | filter | ... }}` placeholders filled
 * from `vars`, values written as Python `str()` writes them.
 */
import { pythonJsonDumps, pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';

/** `a.b[0].c` (and `a.0.c` into lists) in a JSON value; null when any step is missing. */
export function templatePath(root: unknown, path: string): unknown {
  const tokens = [...path.trim().matchAll(/([^.[\]]+)|\[(\d+)\]/g)].flatMap((m): Array<string | number> => {
    if (m[1] !== undefined) return m[1].trim() ? [m[1].trim()] : [];
    return [Number(m[2])];
  });
  if (tokens.length === 0) return null;
  let current = root;
  for (const token of tokens) {
    if (isRecord(current) && typeof token === 'string') {
      current = Object.hasOwn(current, token) ? current[token] : null;
    } else if (Array.isArray(current)) {
      const index = typeof token === 'number' ? token : /^\d+$/.test(token) ? Number(token) : null;
      if (index === null || index >= current.length) return null;
      current = current[index];
    } else {
      return null;
    }
  }
  return current ?? null;
}

function applyFilter(value: unknown, filter: string): unknown {
  if (filter === 'json') return pythonJsonDumps(value, { sortKeys: true, ensureAscii: false });
  if (filter.startsWith('join')) {
    const m = /^join\((.*)\)$/s.exec(filter);
    let delimiter = ', ';
    if (m) {
      delimiter = m[1]!.trim();
      if (delimiter.length >= 2 && /^(['"]).*\1$/s.test(delimiter)) delimiter = delimiter.slice(1, -1);
    }
    if (Array.isArray(value)) return value.map((x) => (x === null || x === undefined ? '' : pythonStr(x))).join(delimiter);
    return value === null ? '' : pythonStr(value);
  }
  const text = value === null ? '' : pythonStr(value);
  if (filter === 'trim') return text.trim();
  if (filter === 'lower') return text.toLowerCase();
  if (filter === 'upper') return text.toUpperCase();
  return value; // unknown filters are ignored, as in the origin
}

function renderExpression(expr: string, vars: Record<string, unknown>): string {
  const [path = '', ...filters] = expr.split('|').map((p) => p.trim());
  let value = templatePath(vars, path);
  if (value === null) return '';
  for (const filter of filters) if (filter) value = applyFilter(value, filter);
  return value === null ? '' : pythonStr(value);
}

const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/**
 * The placeholders of the origin's pattern `\{\{\s*(.*?)\s*\}\}` (the expression never spans a line;
 * whitespace around it may), found by a scan that is linear in the template: the regex itself
 * takes quadratic time on a template of many `{{` without `}}`.
 */
function* placeholders(template: string): Generator<{ start: number; end: number; expr: string }> {
  let from = 0;
  for (let open = template.indexOf('{{', from); open >= 0; open = template.indexOf('{{', from)) {
    let start = open + 2;
    while (isSpace(template[start])) start += 1;
    const newline = template.indexOf('\n', start);
    const lineEnd = newline < 0 ? template.length : newline;
    // The expression stays on its line: look for `}}` there only (a slice, so the scan is bounded by the line).
    const close = template.slice(start, lineEnd).indexOf('}}');
    if (close >= 0) {
      yield { start: open, end: start + close + 2, expr: template.slice(start, start + close).trimEnd() };
      from = start + close + 2;
      continue;
    }
    // Else only whitespace (across lines) may lead from the line's end to a `}}`.
    let after = lineEnd;
    while (isSpace(template[after])) after += 1;
    if (newline >= 0 && template.startsWith('}}', after)) {
      yield { start: open, end: after + 2, expr: template.slice(start, lineEnd).trimEnd() };
      from = after + 2;
      continue;
    }
    // A later `{{` of this line fails the same way, unless it is the last one (only whitespace after it may reach the next line).
    const lastOpen = template.lastIndexOf('{{', lineEnd - 2);
    from = lastOpen > open ? lastOpen : Math.max(open + 1, lineEnd);
  }
}

/** The template with each `{{ expr }}` replaced; a missing or null value gives `""` and skips its filters. */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  let out = '';
  let last = 0;
  for (const { start, end, expr } of placeholders(template)) {
    out += template.slice(last, start) + renderExpression(expr, vars);
    last = end;
  }
  return out + template.slice(last);
}

export const templateHelpers: Helpers = {
  string_template: (i) => {
    const template = i.template === undefined || i.template === null || i.template === '' || i.template === false || i.template === 0 ? '' : pythonStr(i.template);
    return renderTemplate(template, isRecord(i.vars) ? i.vars : {});
  },
};
