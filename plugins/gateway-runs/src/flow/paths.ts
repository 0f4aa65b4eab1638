/**
 * Dotted/bracket paths into JSON values (`a.b[0].c`), as VisualFlow nodes address variables. Only
 * own keys are walked and written: a path through `__proto__` or `constructor` (a flow is authored
 * by any account) is plain data, never Object's prototype.
 */
export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of splitPath(path)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = splitPath(path);
  let current: Record<string, unknown> = target;
  parts.slice(0, -1).forEach((part) => {
    const next = Object.hasOwn(current, part) ? current[part] : undefined;
    if (typeof next !== 'object' || next === null) defineKey(current, part, {});
    current = current[part] as Record<string, unknown>;
  });
  defineKey(current, parts[parts.length - 1]!, value);
}

/** Sets an own key even when it is `__proto__` (a plain assignment would change the prototype instead). */
export function defineKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function splitPath(path: string): string[] {
  return path.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean);
}
