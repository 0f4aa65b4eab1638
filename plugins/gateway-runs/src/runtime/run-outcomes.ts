/** How a run's end is told: the output of a path that ends, and the reason of an unexpected error. */

/** A path that ends on a node without an exec successor completes the run with that node's output. */
export function terminalOutput(output: unknown): Record<string, unknown> {
  if (output !== null && typeof output === 'object' && !Array.isArray(output)) return { success: true, ...(output as Record<string, unknown>) };
  return { response: output ?? null, success: true };
}

/** An error's first line, its absolute paths replaced by their file names and its length capped, as one sentence. */
export function unexpectedReason(err: unknown): string {
  const message = (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).split('\n')[0]!.trim();
  const clean = message.replace(/(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][^\\/\s'"`()]+)+[\\/]?/g, (p) => `…/${p.split(/[\\/]/).filter(Boolean).pop() ?? ''}`);
  const short = clean.length > 300 ? `${clean.slice(0, 300)}…` : clean;
  return /[.!?]$/.test(short) ? short : `${short}.`;
}

/** What JSON can carry of `value` (BigInts as strings; symbols and functions dropped); `{}` when even that fails (a cycle). */
export function storableCopy(value: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
  } catch {
    return {};
  }
}
