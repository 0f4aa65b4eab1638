/**
 * Which seat kinds a hub charter speaks to, reported to the operator who publishes it
 * (`PUT /admin/charter`, reference §8.2): a kind whose word never appears is "missing", and a kind
 * without a `## ` section of its own is "unsectioned" (the charter cannot be cut for it).
 */
import { ROLES, type Role } from './charter-views.js';

/** What each kind is, told to an operator whose charter never names it. */
const ROLE_MEANING: Record<Role, string> = {
  member: 'the default seat every other kind builds on',
  owner: "a seat that created a room and holds its charter, its `channel:` metadata and its invites",
  delegate: 'a seat an operator lent named powers for a bounded time',
  operator: 'a seat holding every power, who may replace this charter',
};

export interface CharterCoverage {
  missing_roles: string[];
  sliceable: boolean;
  unsectioned_roles: string[];
}

/** `## ` headings outside fenced code blocks. */
function headings(text: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && line.startsWith('## ')) out.push(line.slice(3).trim());
  }
  return out;
}

/**
 * A heading addresses a kind when it is tagged for it (`## Delegates [delegate]`, this hub's
 * convention) or its subject (the text before ` — `, ` – `, ` - ` or `:`) names the kind, singular or
 * plural, as in the reference. An untagged section is read by every seat, so it covers `member`.
 */
function addresses(heading: string, role: Role): boolean {
  const tag = /\[([a-z ,]+)\]\s*$/.exec(heading);
  if (tag) return tag[1]!.split(/[ ,]+/).includes(role);
  if (role === 'member') return true;
  const subject = heading.split(/ — | – | - |:/)[0]!.toLowerCase();
  return new RegExp(`\\b${role}s?\\b`).test(subject);
}

export function charterCoverage(text: string): CharterCoverage {
  const lower = text.toLowerCase();
  const missing = ROLES.filter((r) => !lower.includes(r)).map((r) => `${r} — ${ROLE_MEANING[r]}`);
  const heads = headings(text);
  const unsectioned = ROLES.filter((r) => !heads.some((h) => addresses(h, r)));
  return { missing_roles: missing, sliceable: unsectioned.length === 0, unsectioned_roles: unsectioned };
}
