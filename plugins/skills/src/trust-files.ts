/**
 * The shelf's trust files. `validations.yaml`: the skills a reviewer validated, each at one tree hash
 * (an edited skill is no longer validated). `advisories.yaml`: skills that must never ride, at one
 * tree hash or at every version. A missing file is an empty one; an unreadable one is an error the
 * shelf listing turns into a fail-closed verdict.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

export const VALIDATIONS_FILE = 'validations.yaml';
export const ADVISORIES_FILE = 'advisories.yaml';
export const TRUST_FILES = [VALIDATIONS_FILE, ADVISORIES_FILE] as const;

export interface Validation {
  tree_hash: string;
  reviewed_by: string | null;
  reviewed_at: string | null;
}

export interface Advisory {
  /** Null: every version of the skill. */
  tree_hash: string | null;
  reason: string;
}

export interface TrustFiles {
  validations: Map<string, Validation>;
  advisories: Map<string, Advisory[]>;
}

export async function readTrustFiles(shelf: string): Promise<TrustFiles> {
  const validations = new Map<string, Validation>();
  const advisories = new Map<string, Advisory[]>();
  const v = await readYaml(path.join(shelf, VALIDATIONS_FILE));
  const vs = v?.validations ?? {};
  if (typeof vs !== 'object' || vs === null || Array.isArray(vs)) throw new Error(`${VALIDATIONS_FILE}: validations is not a mapping of skill names`);
  for (const [name, entry] of Object.entries(vs as Record<string, unknown>)) {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.tree_hash !== 'string') throw new Error(`${VALIDATIONS_FILE}: the validation of ${name} has no tree_hash`);
    validations.set(name, { tree_hash: e.tree_hash, reviewed_by: typeof e.reviewed_by === 'string' ? e.reviewed_by : null, reviewed_at: e.reviewed_at == null ? null : String(e.reviewed_at) });
  }
  const a = await readYaml(path.join(shelf, ADVISORIES_FILE));
  const as = a?.advisories ?? [];
  if (!Array.isArray(as)) throw new Error(`${ADVISORIES_FILE}: advisories is not a list`);
  for (const entry of as) {
    const e = (entry ?? {}) as Record<string, unknown>;
    if (typeof e.skill !== 'string' || typeof e.reason !== 'string') throw new Error(`${ADVISORIES_FILE}: every advisory names its skill and reason`);
    const list = advisories.get(e.skill) ?? [];
    list.push({ tree_hash: typeof e.tree_hash === 'string' ? e.tree_hash : null, reason: e.reason });
    advisories.set(e.skill, list);
  }
  return { validations, advisories };
}

async function readYaml(file: string): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${path.basename(file)} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  let value: unknown;
  try {
    value = parse(text, { schema: 'core', maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`${path.basename(file)} is not valid YAML (${(err as Error).message.split('\n')[0]})`, { cause: err });
  }
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path.basename(file)} is not a mapping`);
  return value as Record<string, unknown>;
}
