/** Dotted/bracket paths into JSON values (`a.b[0].c`), as VisualFlow nodes address variables. */
export function getPath(value: unknown, path: string): unknown {
  let current = value;
  for (const part of splitPath(path)) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = splitPath(path);
  let current: Record<string, unknown> = target;
  parts.slice(0, -1).forEach((part) => {
    const next = current[part];
    if (typeof next !== 'object' || next === null) current[part] = {};
    current = current[part] as Record<string, unknown>;
  });
  current[parts[parts.length - 1]!] = value;
}

function splitPath(path: string): string[] {
  return path.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean);
}
