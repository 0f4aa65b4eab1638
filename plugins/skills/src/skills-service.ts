/** The shelf as the routes, the start preparer and `read_skill` see it: resolved at each use. */
import { realpathSync } from 'node:fs';
import { listShelf, judgeSkill, trustOf, type JudgedSkill, type ShelfContext, type SkillRow } from './shelf-skills.js';
import { resolveShelf, type Shelf, type ShelfPlaces } from './shelf.js';
import type { Seeder } from './seeding.js';
import type { SkillsConfig } from './skills-config.js';

export class SkillsService {
  private bundledHashes: Promise<Map<string, string>> | null = null;

  /** The data directory as written and as resolved (a shelf path is stored resolved), longest first. */
  private readonly dataDirs: string[];

  constructor(
    private readonly places: ShelfPlaces,
    readonly seeder: Seeder,
    private readonly config: SkillsConfig,
    dataDir: string | null = null,
  ) {
    const dirs = dataDir ? [dataDir, realpathOr(dataDir)] : [];
    this.dataDirs = [...new Set(dirs.map((d) => d.replace(/\/+$/, '')).filter((d) => d.length > 1))].sort((a, b) => b.length - a.length);
  }

  /**
   * `text` as anyone but an admin may read it: the data directory's path (where the seeded shelf,
   * the tokens and the keys live) written `<data>`. Shelf reasons and errors name paths; `GET
   * /skills` hides the shelf's path from non-admins, so its sentences must too.
   */
  hidePaths(text: string): string {
    let out = text;
    for (const dir of this.dataDirs) out = out.split(dir).join('<data>');
    return out;
  }

  shelf(): Shelf {
    return resolveShelf(this.places);
  }

  /** The bundled shelf's tree hashes (read once: the package does not change while the process runs). */
  private async context(): Promise<ShelfContext> {
    this.bundledHashes ??= this.seeder.bundledHashes().catch(() => new Map<string, string>());
    return { limits: this.config, bundled: await this.bundledHashes };
  }

  async list(shelf: Shelf): Promise<{ skills: SkillRow[]; warnings: string[] }> {
    if (!shelf.path) return { skills: [], warnings: [] };
    return listShelf(shelf.path, await this.context());
  }

  /** Skills judged now, by name (null: not on the shelf), reading the trust files once. */
  async judge(shelfPath: string, names: string[]): Promise<Map<string, JudgedSkill | null>> {
    const ctx = await this.context();
    const trust = await trustOf(shelfPath);
    const out = new Map<string, JudgedSkill | null>();
    for (const name of names) out.set(name, await judgeSkill(shelfPath, name, trust, ctx));
    return out;
  }
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
