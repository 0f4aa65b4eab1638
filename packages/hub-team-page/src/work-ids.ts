/**
 * Work-item ids (`<package>-<NNNN>`: a lowercase package slug, a hyphen, four or more digits) that a
 * message cites: its `data.item_ref` first, then ids mentioned in its title and body, each once.
 * A mention is delimited the way the hub matches it (no slug character glued to either side), and
 * the slug must start with a letter so dates and numbers never read as work ids.
 */

/** A whole work-item id. */
export const WORK_ID = /^[a-z](?:[a-z0-9_.-]*[a-z0-9])?-\d{4,}$/;

const MENTION = /(?<![A-Za-z0-9_.-])[a-z](?:[a-z0-9_.-]*[a-z0-9])?-\d{4,}(?![A-Za-z0-9_-])/g;

/** Work ids mentioned in free text, in order of first appearance. */
export function workIdsIn(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(MENTION)) if (!out.includes(match[0])) out.push(match[0]);
  return out;
}

/** The work ids a message cites: `data.item_ref` (when it is one), then mentions in title and body. */
export function workIdsOf(message: { title?: string | null; body?: string | null; data?: object | null }): string[] {
  const ids: string[] = [];
  const ref = (message.data as { item_ref?: unknown } | null | undefined)?.item_ref;
  if (typeof ref === 'string' && WORK_ID.test(ref)) ids.push(ref);
  for (const id of workIdsIn(`${message.title ?? ''}\n${message.body ?? ''}`)) if (!ids.includes(id)) ids.push(id);
  return ids;
}
