/**
 * Orders a channel's loaded messages as threads: roots by seq, each followed by its replies
 * (depth first, replies by seq). A reply whose parent is not loaded stays a root and says so.
 */

export interface Threadable {
  id: string;
  seq: number;
  reply_to: string | null;
}

export interface ThreadRow<M extends Threadable> {
  message: M;
  /** Indentation level; capped so deep trails stay readable. */
  depth: number;
  /** The message replies to something outside the loaded window. */
  orphan: boolean;
}

export const MAX_DEPTH = 6;

export function threadOrder<M extends Threadable>(messages: Iterable<M>): ThreadRow<M>[] {
  const sorted = [...messages].sort((a, b) => a.seq - b.seq);
  const byId = new Map(sorted.map((m) => [m.id, m]));
  const children = new Map<string, M[]>();
  const roots: M[] = [];
  for (const m of sorted) {
    const parent = m.reply_to && m.reply_to !== m.id ? byId.get(m.reply_to) : undefined;
    if (parent) {
      const list = children.get(parent.id) ?? [];
      list.push(m);
      children.set(parent.id, list);
    } else {
      roots.push(m);
    }
  }
  const rows: ThreadRow<M>[] = [];
  const seen = new Set<string>();
  const visit = (m: M, depth: number) => {
    if (seen.has(m.id)) return;
    seen.add(m.id);
    rows.push({ message: m, depth: Math.min(depth, MAX_DEPTH), orphan: depth === 0 && m.reply_to !== null && !byId.has(m.reply_to) });
    for (const child of children.get(m.id) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  // Reply cycles cannot come from a hub (a reply names an older message), but never drop a row.
  for (const m of sorted) if (!seen.has(m.id)) visit(m, 0);
  return rows;
}
