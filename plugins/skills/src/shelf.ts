/**
 * Which shelf the gateway reads (reference gateway-surfaces §7.1): the first rung that yields a
 * folder wins — `stored` (the runtime setting `skills.shelf`), `env` (`KEEL_SKILLS_SHELF`), `seeded`
 * (`<data>/plugins/skills/registry`, where Keel's bundled skills are copied at start), `checkout`
 * (the copy shipped in this package, only when the seeded copy is missing, with a warning saying
 * why), else `none`. A saved or environment value that is not a usable shelf does not fall through:
 * the shelf is then unavailable with a reason naming the problem.
 *
 * The checks are a few `stat` calls, done synchronously: the admin settings rows need them in a
 * synchronous row builder, and they cost microseconds next to the tree hashing that follows.
 */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

export const SHELF_SETTING = 'skills.shelf';
export const SHELF_ENV = 'KEEL_SKILLS_SHELF';

export type ShelfSource = 'stored' | 'env' | 'seeded' | 'checkout' | 'none';

export interface Shelf {
  /** The shelf's real path; null when none resolved (`available` false). */
  path: string | null;
  source: ShelfSource;
  available: boolean;
  /** Why the shelf is unavailable; null when it is available. */
  reason: string | null;
  warnings: string[];
}

export interface ShelfPlaces {
  /** The saved `skills.shelf`, or undefined. */
  stored: () => unknown;
  /** Where start-up seeding copies the bundled skills. */
  seeded: string;
  /** The bundled shelf shipped in the package. */
  bundled: string;
  /** Why the seeded copy is missing (the seeding error), or null when seeding did not fail. */
  seedFailure: () => string | null;
}

/** Why `p` is not a usable shelf, or null when it is: an absolute folder holding `skills/`. */
export function shelfProblem(p: unknown): string | null {
  if (typeof p !== 'string' || p === '') return 'the value is not a path';
  if (!path.isAbsolute(p)) return `${p} is not an absolute path`;
  const st = statSync(p, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return `no folder at ${p}`;
  const skills = statSync(path.join(p, 'skills'), { throwIfNoEntry: false });
  if (!skills?.isDirectory()) return `${p} has no skills/ folder (a shelf holds skills/<name>/SKILL.md and the trust files)`;
  return null;
}

export function resolveShelf(places: ShelfPlaces, env: NodeJS.ProcessEnv = process.env): Shelf {
  const stored = places.stored();
  if (stored !== undefined && stored !== null) return fixed('stored', stored, `the saved ${SHELF_SETTING} is not usable`);
  const fromEnv = env[SHELF_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return fixed('env', fromEnv, `${SHELF_ENV} (environment) is not usable`);
  if (shelfProblem(places.seeded) === null) return { path: realpathSync(places.seeded), source: 'seeded', available: true, reason: null, warnings: [] };
  const why = places.seedFailure() ?? 'the bundled skills have not been seeded by this process';
  const bundledProblem = shelfProblem(places.bundled);
  if (bundledProblem === null) {
    return {
      path: realpathSync(places.bundled),
      source: 'checkout',
      available: true,
      reason: null,
      warnings: [`The seeded copy of Keel's bundled skills is missing (${why}); the shelf is the read-only copy shipped with @keel/plugin-skills until an admin reseeds (POST /api/gateway/admin/skills/reseed).`],
    };
  }
  return { path: null, source: 'none', available: false, reason: `no shelf: the seeded copy is missing (${why}) and the bundled shelf is not usable (${bundledProblem})`, warnings: [] };
}

function fixed(source: 'stored' | 'env', value: unknown, label: string): Shelf {
  const problem = shelfProblem(value);
  if (problem) return { path: null, source, available: false, reason: `${label}: ${problem}`, warnings: [] };
  return { path: realpathSync(value as string), source, available: true, reason: null, warnings: [] };
}
