/**
 * Role-scoped views of a charter: `## Heading [role]` sections are shown only to seats holding
 * that role (`member`, `owner`, `delegate`, `operator`); untagged sections are for everyone and
 * operators see everything. `full` asks for the whole text.
 */

export const ROLES = ['member', 'owner', 'delegate', 'operator'] as const;
export type Role = (typeof ROLES)[number];

interface Section {
  heading: string;
  roles: string[];
  lines: string[];
}

export interface CharterView {
  text: string;
  sliced: boolean;
  /** Headings of the sections this view leaves out. */
  omitted: string[];
}

const TAGGED_HEADING = /^##\s+(.*?)\s*\[([a-z ,]+)\]\s*$/;

function sections(text: string): Section[] {
  const out: Section[] = [{ heading: '', roles: [], lines: [] }];
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) {
      const tagged = TAGGED_HEADING.exec(line);
      out.push({ heading: (tagged ? tagged[1]! : line.slice(3)).trim(), roles: tagged ? tagged[2]!.split(/[ ,]+/).filter(Boolean) : [], lines: [] });
    }
    out[out.length - 1]!.lines.push(line);
  }
  return out;
}

/** The part of `text` a seat with `view` reads; `full` (or the operator role) gets it all. */
export function viewOf(text: string, view: string[], full: boolean): CharterView {
  if (full || view.includes('operator')) return { text, sliced: false, omitted: [] };
  const kept: string[] = [];
  const omitted: string[] = [];
  for (const s of sections(text)) {
    if (s.roles.length === 0 || s.roles.some((r) => view.includes(r))) kept.push(...s.lines);
    else omitted.push(s.heading);
  }
  return { text: kept.join('\n'), sliced: omitted.length > 0, omitted };
}
