/**
 * Helpers for the skills tests: a kernel with the skills plugin (and what it depends on), and shelf
 * folders made on disk with their trust files.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { skillsPlugin } from '@keel/plugin-skills';
import { readSkillTree } from '../../../plugins/skills/dist/skill-tree.js';

/** A row of `GET /api/gateway/skills`. */
export interface SkillRow {
  name: string;
  description: string;
  trust_level: string;
  blocked: boolean;
  requires_review: boolean;
  reasons: string[];
  tree_hash: string | null;
  has_scripts: boolean;
  source: string;
}

export interface SkillsListing {
  skills: SkillRow[];
  shelf: string | null;
  shelf_hidden?: boolean;
  shelf_source: string;
  available: boolean;
  reason: string | null;
  bundled_version: string | null;
  warnings: string[];
}

export interface SkillsResolution {
  requested: string[];
  active: string[];
  verdicts: string[];
  resolved_tree_hashes: Record<string, string>;
  requires_unmet?: string[];
}

/** A kernel with gateway-runs and the skills plugin (`config`), optionally on `dataDir`. */
export function skillsKernel(config: Record<string, unknown> = {}, dataDir?: string): Promise<TestKernel> {
  return createTestKernel({
    ...(dataDir ? { dataDir } : {}),
    plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: skillsPlugin, config }],
  });
}

export async function listSkills(k: TestKernel, token = k.adminToken): Promise<SkillsListing> {
  const res = await k.inject({ url: '/api/gateway/skills', token });
  if (res.statusCode !== 200) throw new Error(`GET /skills answered ${res.statusCode}: ${res.body}`);
  return res.json<SkillsListing>();
}

export interface SkillSpec {
  description?: string;
  body?: string;
  /** Extra front matter lines (YAML). */
  front?: string;
  /** Raw SKILL.md text instead of the one made from the fields above. */
  raw?: string;
  /** More files of the skill, by relative path. */
  files?: Record<string, string>;
}

/** The SKILL.md text of a spec. */
export function skillText(name: string, spec: SkillSpec): string {
  if (spec.raw !== undefined) return spec.raw;
  return `---\nname: ${name}\ndescription: ${spec.description ?? `What ${name} does.`}\n${spec.front ?? ''}---\n${spec.body ?? `# ${name}\nStep one. Step two.\n`}`;
}

/** Writes skills into `shelf/skills`; answers each one's tree hash. */
export async function writeSkills(shelf: string, skills: Record<string, SkillSpec>): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const [name, spec] of Object.entries(skills)) {
    const folder = path.join(shelf, 'skills', name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'SKILL.md'), skillText(name, spec));
    for (const [rel, text] of Object.entries(spec.files ?? {})) {
      mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
      writeFileSync(path.join(folder, rel), text);
    }
    hashes[name] = (await readSkillTree(folder, { maxTreeFiles: 200, maxTreeBytes: 4 * 1024 * 1024 })).tree_hash;
  }
  return hashes;
}

/** Writes the trust files: `validated` names at their given hashes, `advisories` as given. */
export function writeTrust(shelf: string, validated: Record<string, string>, advisories: Array<{ skill: string; reason: string; tree_hash?: string }> = []): void {
  const validations = Object.fromEntries(Object.entries(validated).map(([name, tree_hash]) => [name, { tree_hash, reviewed_by: 'tests', reviewed_at: '2026-11-24' }]));
  writeFileSync(path.join(shelf, 'validations.yaml'), stringify({ version: 1, validations }));
  writeFileSync(path.join(shelf, 'advisories.yaml'), stringify({ version: 1, advisories }));
}

/** Runs `fn` with KEEL_SKILLS_SHELF set to `value` (unset when null), restoring it afterwards. */
export async function withShelfEnv<T>(value: string | null, fn: () => Promise<T>): Promise<T> {
  const before = process.env.KEEL_SKILLS_SHELF;
  if (value === null) delete process.env.KEEL_SKILLS_SHELF;
  else process.env.KEEL_SKILLS_SHELF = value;
  try {
    return await fn();
  } finally {
    if (before === undefined) delete process.env.KEEL_SKILLS_SHELF;
    else process.env.KEEL_SKILLS_SHELF = before;
  }
}
