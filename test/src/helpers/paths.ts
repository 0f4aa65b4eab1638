import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (tests run from test/dist/...). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const keelBin = path.join(repoRoot, 'kernel', 'bin', 'keel.js');
export const fixturesDir = path.join(repoRoot, 'test', 'dist', 'fixtures');
/**
 * The shared test data beside the repository (real models, real fixture bundles): `../shared`, or
 * `KEEL_SHARED_DIR` (point it at a missing folder to check that the tests needing it skip and the rest run).
 */
export const sharedDir = process.env.KEEL_SHARED_DIR ? path.resolve(process.env.KEEL_SHARED_DIR) : path.resolve(repoRoot, '..', 'shared');

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'keel-t-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
