/** Opening a benchmark child's many connections a batch at a time (a server's listen backlog is finite). */

/** Opens every item, `batch` at once; answers how many failed and the first failure. */
export async function openInBatches<T>(items: readonly T[], batch: number, open: (item: T, index: number) => Promise<void>): Promise<{ failed: number; firstError: string | null }> {
  let failed = 0;
  let firstError: string | null = null;
  for (let i = 0; i < items.length; i += batch) {
    const results = await Promise.allSettled(items.slice(i, i + batch).map((item, j) => open(item, i + j)));
    for (const r of results) {
      if (r.status === 'rejected') {
        failed++;
        firstError ??= String(r.reason);
      }
    }
  }
  return { failed, firstError };
}
