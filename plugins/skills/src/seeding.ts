/**
 * Copies Keel's bundled shelf (shipped in this package) into the data dir (`<data>/plugins/skills/
 * registry`): at start, once per server process, and on `POST /admin/skills/reseed`. A missing skill
 * or trust file is added; one still as it was seeded is updated; one an operator edited is kept
 * (never overwritten), and one Keel never seeded is kept too. The tree hash of what was seeded is
 * recorded in LMDB, which is how an edit is told from an older bundled version.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import { fileHash, readSkillTree, SKILL_NAME, type TreeLimits } from './skill-tree.js';
import { short } from './shelf-skills.js';
import { TRUST_FILES } from './trust-files.js';

export const BUNDLED_VERSION_FILE = 'VERSION';

/** What the last seeding recorded: the version and the hash of each skill and trust file it left as seeded. */
interface SeedRecord {
  version: string;
  seeded_at: string;
  skills: Record<string, string>;
  files: Record<string, string>;
}

export interface SeedReport {
  ok: true;
  dest: string;
  /** Skills (by name) and trust files (by file name) copied because they were missing. */
  added: string[];
  /** Copies still as seeded that the bundled version replaced. */
  updated: string[];
  unchanged: string[];
  /** Every copy left alone, with why. */
  kept: Record<string, string>;
  /** Copies changed on the shelf since they were seeded. */
  kept_edited: string[];
  /** Copies Keel never seeded (already on the shelf when it first seeded). */
  kept_unrecorded: string[];
  bundled_version: string;
  previous_version: string | null;
  changed: boolean;
}

export class Seeder {
  private readonly record: Database<SeedRecord, string>;
  /** Seedings run one at a time (start-up and an admin's reseed). */
  private chain: Promise<unknown> = Promise.resolve();
  private failure: string | null = null;

  constructor(
    storage: PluginStorage,
    readonly bundled: string,
    readonly dest: string,
    private readonly limits: TreeLimits,
  ) {
    this.record = storage.openDB<SeedRecord, string>('seeding');
  }

  /** Why the last seeding failed, or null. */
  lastFailure(): string | null {
    return this.failure;
  }

  previousVersion(): string | null {
    return this.record.get('registry')?.version ?? null;
  }

  async bundledVersion(): Promise<string> {
    return (await readFile(path.join(this.bundled, BUNDLED_VERSION_FILE), 'utf8')).trim();
  }

  /** Tree hashes of the bundled skills by name. */
  async bundledHashes(): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const name of await this.bundledNames()) out.set(name, (await readSkillTree(path.join(this.bundled, 'skills', name), this.limits)).tree_hash);
    return out;
  }

  /** Seeds now (after any seeding in progress); a failure is remembered (`lastFailure`) and thrown. */
  seed(): Promise<SeedReport> {
    const run = this.chain.then(() => this.seedNow());
    this.chain = run.catch(() => undefined);
    return run.then(
      (report) => {
        this.failure = null;
        return report;
      },
      (err: NodeJS.ErrnoException) => {
        this.failure = `copying into the seeded shelf failed: ${err.code ?? err.message}`;
        throw err;
      },
    );
  }

  private async bundledNames(): Promise<string[]> {
    return (await readdir(path.join(this.bundled, 'skills'), { withFileTypes: true })).filter((e) => e.isDirectory() && SKILL_NAME.test(e.name)).map((e) => e.name).sort();
  }

  private async seedNow(): Promise<SeedReport> {
    const version = await this.bundledVersion();
    const before = this.record.get('registry');
    const record: SeedRecord = { version, seeded_at: new Date().toISOString(), skills: { ...(before?.skills ?? {}) }, files: { ...(before?.files ?? {}) } };
    const report: SeedReport = { ok: true, dest: this.dest, added: [], updated: [], unchanged: [], kept: {}, kept_edited: [], kept_unrecorded: [], bundled_version: version, previous_version: before?.version ?? null, changed: false };
    await mkdir(path.join(this.dest, 'skills'), { recursive: true });
    const keep = (name: string, current: string, seeded: string | undefined) => {
      if (seeded === undefined) {
        report.kept[name] = 'already on the shelf and not seeded by Keel';
        report.kept_unrecorded.push(name);
      } else {
        report.kept[name] = `edited since it was seeded (now ${short(current)}, seeded ${short(seeded)})`;
        report.kept_edited.push(name);
      }
    };
    for (const name of await this.bundledNames()) {
      const source = path.join(this.bundled, 'skills', name);
      const target = path.join(this.dest, 'skills', name);
      const bundledHash = (await readSkillTree(source, this.limits)).tree_hash;
      const current = await readSkillTree(target, this.limits).then(
        (t) => (t.problems.length ? `${t.tree_hash}+problems` : t.tree_hash),
        (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? null : `unreadable:${err.code ?? err.message}`),
      );
      if (current === null) {
        await replaceFolder(source, target);
        record.skills[name] = bundledHash;
        report.added.push(name);
      } else if (current === bundledHash) {
        record.skills[name] = bundledHash;
        report.unchanged.push(name);
      } else if (record.skills[name] === current) {
        await replaceFolder(source, target);
        record.skills[name] = bundledHash;
        report.updated.push(name);
      } else keep(name, current, record.skills[name]);
    }
    for (const file of TRUST_FILES) {
      const bundledHash = await fileHash(path.join(this.bundled, file));
      if (bundledHash === null) continue;
      const target = path.join(this.dest, file);
      const current = await fileHash(target);
      if (current === null || (current !== bundledHash && record.files[file] === current)) {
        await replaceFile(path.join(this.bundled, file), target);
        record.files[file] = bundledHash;
        (current === null ? report.added : report.updated).push(file);
      } else if (current === bundledHash) {
        record.files[file] = bundledHash;
        report.unchanged.push(file);
      } else keep(file, current, record.files[file]);
    }
    await this.record.put('registry', record);
    report.changed = report.added.length + report.updated.length > 0;
    return report;
  }
}

/** Puts a copy of `source` at `target` (a folder), switching in a complete copy. */
async function replaceFolder(source: string, target: string): Promise<void> {
  const tag = randomBytes(6).toString('hex');
  const fresh = path.join(path.dirname(target), `.${path.basename(target)}.seeding-${tag}`);
  const old = path.join(path.dirname(target), `.${path.basename(target)}.old-${tag}`);
  await cp(source, fresh, { recursive: true, errorOnExist: true, force: false, verbatimSymlinks: true });
  const had = await rename(target, old).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    },
  );
  await rename(fresh, target);
  if (had) await rm(old, { recursive: true, force: true });
}

async function replaceFile(source: string, target: string): Promise<void> {
  const fresh = `${target}.seeding-${randomBytes(6).toString('hex')}`;
  await cp(source, fresh, { errorOnExist: true, force: false });
  await rename(fresh, target);
}
