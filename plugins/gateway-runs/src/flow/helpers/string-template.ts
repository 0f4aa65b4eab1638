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

/** The template with each `{{ expr }}` replaced; a missing or null value gives `""` and skips its filters. */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  return template.replace(/\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    const [path = '', ...filters] = expr.split('|').map((p) => p.trim());
    let value = templatePath(vars, path);
    if (value === null) return '';
    for (const filter of filters) if (filter) value = applyFilter(value, filter);
    return value === null ? '' : pythonStr(value);
  });
}

export const templateHelpers: Helpers = {
  string_template: (i) => {
    const template = i.template === undefined || i.template === null || i.template === '' || i.template === false || i.template === 0 ? '' : pythonStr(i.template);
    return renderTemplate(template, isRecord(i.vars) ? i.vars : {});
  },
};
