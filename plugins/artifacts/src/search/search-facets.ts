/**
 * Exact statistics of a filtered set (reference gateway-surfaces §2.5, "Stats"): the row count, the
 * byte total and, per facet, how many rows carry each value (`(none)` for an empty one), counted in
 * the same pass that finds the page, so they never depend on `limit`.
 */
import type { SearchRow } from './search-row.js';

export const FACETS = ['semantic_kind', 'render_kind', 'modality', 'content_type', 'workflow_id', 'node_id', 'run_id'] as const;
export type Facet = (typeof FACETS)[number];
const NONE = '(none)';

export class FacetCounter {
  total = 0;
  totalBytes = 0;
  private readonly counts: Record<Facet, Map<string, number>> = {
    semantic_kind: new Map(), render_kind: new Map(), modality: new Map(), content_type: new Map(), workflow_id: new Map(), node_id: new Map(), run_id: new Map(),
  };

  add(row: SearchRow): void {
    this.total += 1;
    if (row.size > 0) this.totalBytes += row.size;
    this.bump('semantic_kind', row.semantic_kind);
    this.bump('render_kind', row.render_kind);
    this.bump('modality', row.modality);
    this.bump('content_type', row.content_type);
    this.bump('workflow_id', row.workflow_id);
    this.bump('node_id', row.node_id);
    this.bump('run_id', row.run);
  }

  private bump(facet: Facet, value: string | null): void {
    const key = value === null || value === '' ? NONE : value;
    const map = this.counts[facet];
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  /** Per facet, `{value: count}` with the largest counts first (ties by value). */
  facets(): Record<Facet, Record<string, number>> {
    const out = {} as Record<Facet, Record<string, number>>;
    for (const facet of FACETS) {
      const sorted = [...this.counts[facet]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      out[facet] = Object.fromEntries(sorted);
    }
    return out;
  }
}
