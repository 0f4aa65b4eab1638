/**
 * A SKILL.md: YAML front matter between `---` lines (`name`, `description`, optional `version` and
 * `requires: {tools, mcp_servers}`), then the instructions the agent reads with `read_skill`.
 */
import { parse } from 'yaml';

export interface SkillRequires {
  tools: string[];
  mcp_servers: string[];
}

export interface SkillFile {
  name: string;
  description: string;
  version: string | null;
  requires: SkillRequires;
  /** The instructions after the front matter. */
  body: string;
}

/** Thrown with a sentence saying what is wrong with the file. */
export class SkillFileError extends Error {}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

export function parseSkillFile(text: string): SkillFile {
  const match = FRONT_MATTER.exec(text.replace(/^\uFEFF/, ''));
  if (!match) throw new SkillFileError('SKILL.md does not start with a front matter block between --- lines');
  let meta: unknown;
  try {
    // Plain YAML only: no custom tags, and a bounded alias expansion.
    meta = parse(match[1]!, { schema: 'core', maxAliasCount: 100 });
  } catch (err) {
    throw new SkillFileError(`the front matter of SKILL.md is not valid YAML (${(err as Error).message.split('\n')[0]})`, { cause: err });
  }
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new SkillFileError('the front matter of SKILL.md is not a mapping');
  const m = meta as Record<string, unknown>;
  if (typeof m.name !== 'string' || !m.name.trim()) throw new SkillFileError('the front matter of SKILL.md has no name');
  if (typeof m.description !== 'string' || !m.description.trim()) throw new SkillFileError('the front matter of SKILL.md has no description');
  const requires = m.requires === undefined || m.requires === null ? {} : m.requires;
  if (typeof requires !== 'object' || Array.isArray(requires)) throw new SkillFileError('requires in SKILL.md is not a mapping of tools and mcp_servers');
  const list = (key: string): string[] => {
    const v = (requires as Record<string, unknown>)[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new SkillFileError(`requires.${key} in SKILL.md is not a list of names`);
    return v as string[];
  };
  return {
    name: m.name.trim(),
    description: m.description.trim().replace(/\s+/g, ' '),
    version: m.version === undefined || m.version === null ? null : String(m.version),
    requires: { tools: list('tools'), mcp_servers: list('mcp_servers') },
    body: text.slice(text.indexOf(match[0]) + match[0].length),
  };
}
