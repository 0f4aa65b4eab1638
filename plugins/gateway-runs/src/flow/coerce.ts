/**
 * Boolean coercion of flags as the origin runtime reads them (reference runtime-nodes §2 rule 4):
 * `include_context`, `use_context`, `keep_in_context`, `inherit_context`, media flags, ...
 */

const TRUE_WORDS = new Set(['true', '1', 'yes', 'on']);

/**
 * `null` → false; booleans as they are; numbers → `!= 0`; strings trimmed and lowercased:
 * `true`/`1`/`yes`/`on` → true, any other string (`false`, `0`, `no`, `off`, `""`, `maybe`) → false.
 * Lists and objects: Python truthiness (non-empty → true).
 */
export function coerceBool(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return TRUE_WORDS.has(value.trim().toLowerCase());
  return pythonTruthy(value);
}

/** Python `bool(value)` of a JSON value: `None`, `False`, `0`, `""`, `[]`, `{}` are false. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}
