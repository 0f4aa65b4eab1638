/**
 * The skills on a shelf with their trust verdict (reference gateway-surfaces §7.1): `validated` while
 * `validations.yaml` records the skill at its current tree hash; otherwise `unverified` (held); an
 * advisory in `advisories.yaml` for the skill (at this hash, or every version) blocks it. A skill
 * whose evaluation throws fails closed: unverified, needing review, with a `#FALLBACK` reason.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseSkillFile, type SkillRequires } from './skill-file.js';
import { readSkillTree, SKILL_NAME, type TreeLimits } from './skill-tree.js';
import { readTrustFiles, type TrustFiles } from './trust-files.js';

export interface SkillRow {
  name: string;
  description: string;
  version: string | null;
  trust_level: 'validated' | 'unverified';
  blocked: boolean;
  requires_review: boolean;
  reasons: string[];
  tree_hash: string | null;
  has_scripts: boolean;
  /** `bundled` (Keel's, unedited), `modified` (Keel's, changed on the shelf) or `local` (the operator's own). */
  source: 'bundled' | 'modified' | 'local';
  requires: SkillRequires;
}

/** A skill as judged now, with the instructions `read_skill` returns (null unless it parsed). */
export interface JudgedSkill extends SkillRow {
  body: string | null;
}

export interface ShelfContext {
  limits: TreeLimits & { maxSkills: number };
  /** Tree hashes of the bundled skills, by name (for `source`). */
  bundled: ReadonlyMap<string, string>;
}

/** The trust files of a shelf, or the error reading them (every skill then fails closed). */
export async function trustOf(shelf: string): Promise<TrustFiles | Error> {
  try {
    return await readTrustFiles(shelf);
  } catch (err) {
    return err as Error;
  }
}

/** One skill judged now; null when the shelf has no skill folder of that name (or the name is not a skill name). */
export async function judgeSkill(shelf: string, name: string, trust: TrustFiles | Error, ctx: ShelfContext): Promise<JudgedSkill | null> {
  if (!SKILL_NAME.test(name)) return null;
  const folder = path.join(shelf, 'skills', name);
  const st = await lstat(folder).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
    throw err;
  });
  if (!st || (!st.isDirectory() && !st.isSymbolicLink())) return null;
  const row: JudgedSkill = { name, description: '', version: null, trust_level: 'unverified', blocked: false, requires_review: true, reasons: [], tree_hash: null, has_scripts: false, source: ctx.bundled.has(name) ? 'modified' : 'local', requires: { tools: [], mcp_servers: [] }, body: null };
  try {
    if (st.isSymbolicLink()) {
      row.reasons.push('the skill folder is a link (links on a shelf are not followed)');
      return row;
    }
    const tree = await readSkillTree(folder, ctx.limits);
    row.tree_hash = tree.tree_hash;
    row.has_scripts = tree.has_scripts;
    if (ctx.bundled.get(name) === tree.tree_hash) row.source = 'bundled';
    const problems = [...tree.problems];
    if (!tree.skill_md) problems.push('it has no SKILL.md');
    else {
      try {
        const file = parseSkillFile(tree.skill_md.toString('utf8'));
        row.description = file.description;
        row.version = file.version;
        row.requires = file.requires;
        row.body = file.body;
        if (file.name !== name) problems.push(`its SKILL.md names it '${file.name}', not its folder name`);
      } catch (err) {
        problems.push((err as Error).message);
      }
    }
    if (trust instanceof Error) throw trust;
    for (const advisory of trust.advisories.get(name) ?? []) {
      if (advisory.tree_hash === null || advisory.tree_hash === tree.tree_hash) {
        row.blocked = true;
        row.reasons.push(`advisory: ${advisory.reason}`);
      }
    }
    const validation = trust.validations.get(name);
    if (problems.length) row.reasons.push(...problems);
    else if (validation && validation.tree_hash === tree.tree_hash) row.trust_level = 'validated';
    else if (validation) row.reasons.push(`changed since it was validated (tree hash ${short(tree.tree_hash)} is not the validated ${short(validation.tree_hash)})`);
    else row.reasons.push('no validation record in validations.yaml');
    row.requires_review = row.trust_level !== 'validated' || row.blocked;
    if (row.trust_level !== 'validated' || row.blocked) row.body = null;
    return row;
  } catch (err) {
    return { ...row, trust_level: 'unverified', blocked: false, requires_review: true, reasons: [`#FALLBACK trust evaluation failed: ${(err as Error).message}`], body: null };
  }
}

/** Every skill on the shelf, by name, with warnings for folder entries that are not skills. */
export async function listShelf(shelf: string, ctx: ShelfContext): Promise<{ skills: SkillRow[]; warnings: string[] }> {
  const warnings: string[] = [];
  const entries = (await readdir(path.join(shelf, 'skills'), { withFileTypes: true })).filter((e) => !e.name.startsWith('.')).sort((a, b) => (a.name < b.name ? -1 : 1));
  const trust = await trustOf(shelf);
  if (trust instanceof Error) warnings.push(`The shelf's trust files cannot be read (${trust.message}); every skill is held until they are fixed.`);
  const skills: SkillRow[] = [];
  for (const e of entries) {
    if (!e.isDirectory() && !e.isSymbolicLink()) continue;
    if (!SKILL_NAME.test(e.name)) {
      warnings.push(`skills/${e.name} is not listed: a skill name is 1-64 letters, digits, '-' or '_', starting with a letter or digit.`);
      continue;
    }
    if (skills.length >= ctx.limits.maxSkills) {
      warnings.push(`The shelf holds more than ${ctx.limits.maxSkills} skills (skills setting maxSkills); the rest are not listed.`);
      break;
    }
    const judged = await judgeSkill(shelf, e.name, trust, ctx);
    if (judged) {
      const { body: _body, ...row } = judged;
      skills.push(row);
    }
  }
  return { skills, warnings };
}

export function short(hash: string): string {
  return hash.replace(/^sha256:/, '').slice(0, 12);
}
