/** The shelf as the routes, the start preparer and `read_skill` see it: resolved at each use. */
import { listShelf, judgeSkill, trustOf, type JudgedSkill, type ShelfContext, type SkillRow } from './shelf-skills.js';
import { resolveShelf, type Shelf, type ShelfPlaces } from './shelf.js';
import type { Seeder } from './seeding.js';
import type { SkillsConfig } from './skills-config.js';

export class SkillsService {
  private bundledHashes: Promise<Map<string, string>> | null = null;

  constructor(
    private readonly places: ShelfPlaces,
    readonly seeder: Seeder,
    private readonly config: SkillsConfig,
  ) {}

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
