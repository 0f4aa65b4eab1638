/**
 * Search snippets carry highlights as `[start, length]` pairs counted in Unicode code points, not
 * UTF-16 units: an emoji before a match is one position for the hub and two for `String#slice`.
 * The snippet is split into code points first, so astral characters never shift or split a mark.
 */

export interface SnippetSegment {
  text: string;
  highlighted: boolean;
}

/** Cuts `snippet` into plain and highlighted runs; bad, overlapping or out-of-range pairs are clamped or dropped. */
export function highlightSegments(snippet: string, highlights: ReadonlyArray<readonly [number, number]> | null | undefined): SnippetSegment[] {
  const points = Array.from(snippet);
  const marks = new Array<boolean>(points.length).fill(false);
  for (const pair of highlights ?? []) {
    if (!Array.isArray(pair) || pair.length < 2) continue;
    const [start, length] = pair;
    if (!Number.isInteger(start) || !Number.isInteger(length) || length <= 0) continue;
    const from = Math.max(0, start);
    const to = Math.min(points.length, start + length);
    for (let i = from; i < to; i++) marks[i] = true;
  }
  const segments: SnippetSegment[] = [];
  let i = 0;
  while (i < points.length) {
    const highlighted = marks[i]!;
    let j = i;
    while (j < points.length && marks[j] === highlighted) j++;
    segments.push({ text: points.slice(i, j).join(''), highlighted });
    i = j;
  }
  return segments;
}
