/**
 * Where bundles come from: Keel's shipped bundles, the shared bundle directory (admins write it),
 * and each account's private bundles. Keyed by the manifest's id and version, not the file name.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '@keel/plugin-sdk';
import { readBundle, type Bundle, type BundleLimits } from './read-bundle.js';
import type { UploadReader } from './upload-reader.js';

export type BundleSource = 'shipped' | 'published' | 'imported';

/** The manifest mark of a bundle `POST /visualflows/{flow_id}/publish` made (`metadata.published_from`). */
export const PUBLISHED_FROM_VISUALFLOW = 'visualflow';

/** A shared-directory bundle an admin published from a VisualFlow is `published`; any other upload `imported`. */
function sourceOf(bundle: Bundle, scope: BundleEntry['scope'], fallback: BundleSource): BundleSource {
  return scope === 'shared' && bundle.manifest.metadata.published_from === PUBLISHED_FROM_VISUALFLOW ? 'published' : fallback;
}

export interface BundleEntry {
  bundle: Bundle;
  source: BundleSource;
  file: string;
  scope: 'shipped' | 'shared' | 'private';
  account: string | null;
}

/**
 * A folder's listing is reused while the folder's mtime is unchanged, but only once that mtime is
 * older than this when listed: file system timestamps are coarse (a clock tick), so a file added
 * in the same tick as a listing could leave the mtime as it was; after this long it cannot.
 */
const SETTLED_MS = 2000;

export class BundleRegistry {
  private readonly cache = new Map<string, { mtimeMs: number; entry: BundleEntry | null }>();
  /** Each folder's `.flow` names (sorted) by the folder's mtime: a start costs a stat per folder, not a listing. */
  private readonly listings = new Map<string, { mtimeMs: number; names: string[] }>();

  constructor(
    private readonly shippedDir: string,
    private readonly sharedDir: string,
    private readonly privateDir: (account: string) => string,
    private readonly uploads: UploadReader,
    private readonly log: Logger,
  ) {}

  private get limits(): BundleLimits {
    return this.uploads.limits;
  }

  /** Every bundle an account can run: its private ones, the shared directory, the shipped ones. */
  list(account: string): BundleEntry[] {
    const out = new Map<string, BundleEntry>();
    const add = (entries: BundleEntry[]) => {
      for (const e of entries) {
        const key = `${e.bundle.manifest.bundle_id}@${e.bundle.manifest.bundle_version}`;
        if (!out.has(key)) out.set(key, e);
      }
    };
    add(this.scan(this.privateDir(account), 'private', account, 'imported'));
    add(this.scan(this.sharedDir, 'shared', null, 'imported'));
    add(this.scan(this.shippedDir, 'shipped', null, 'shipped'));
    return [...out.values()];
  }

  /** A bundle by id, at a version or the latest (dotted-integer versions compare numerically). */
  find(account: string, bundleId: string, version?: string): BundleEntry | null {
    const candidates = this.list(account).filter((e) => e.bundle.manifest.bundle_id === bundleId);
    if (version) return candidates.find((e) => e.bundle.manifest.bundle_version === version) ?? null;
    return candidates.sort((a, b) => compareVersions(b.bundle.manifest.bundle_version, a.bundle.manifest.bundle_version))[0] ?? null;
  }

  /** Installs an uploaded bundle (read within the limits first, off the main thread, so a refused one is never stored); refuses to replace an existing version unless `overwrite`. */
  async install(bytes: Uint8Array, scope: 'shared' | 'private', account: string, overwrite: boolean): Promise<{ entry: BundleEntry; replaced: boolean }> {
    const bundle = await this.uploads.read(bytes);
    const dir = scope === 'shared' ? this.sharedDir : this.privateDir(account);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = path.join(dir, `${bundle.manifest.bundle_id}@${bundle.manifest.bundle_version}.flow`);
    const replaced = existsSync(file);
    if (replaced && !overwrite) throw new BundleConflict(`${bundle.manifest.bundle_id}@${bundle.manifest.bundle_version} is already installed; send overwrite=true to replace it.`);
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    this.cache.delete(file);
    return { entry: { bundle, source: sourceOf(bundle, scope, 'imported'), file, scope, account: scope === 'private' ? account : null }, replaced };
  }

  private scan(dir: string, scope: BundleEntry['scope'], account: string | null, source: BundleSource): BundleEntry[] {
    let names: string[];
    try {
      names = this.flowNames(dir);
    } catch {
      return [];
    }
    const out: BundleEntry[] = [];
    for (const name of names) {
      const file = path.join(dir, name);
      const entry = this.load(file, scope, account, source);
      if (entry) out.push(entry);
    }
    return out;
  }

  /** The folder's `.flow` file names, sorted; none when the folder is missing (an account without bundles); throws when it cannot be read. */
  private flowNames(dir: string): string[] {
    // No exception for a missing folder: most accounts have no private bundle folder, and a start asks every time.
    const mtimeMs = statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) {
      this.listings.delete(dir);
      return [];
    }
    const listed = this.listings.get(dir);
    if (listed && listed.mtimeMs === mtimeMs) return listed.names;
    const names = readdirSync(dir).filter((n) => n.endsWith('.flow')).sort();
    if (Date.now() - mtimeMs > SETTLED_MS) this.listings.set(dir, { mtimeMs, names });
    else this.listings.delete(dir);
    return names;
  }

  private load(file: string, scope: BundleEntry['scope'], account: string | null, source: BundleSource): BundleEntry | null {
    let mtimeMs: number;
    try {
      mtimeMs = statMtime(file);
    } catch {
      return null;
    }
    const cached = this.cache.get(file);
    if (cached && cached.mtimeMs === mtimeMs) return cached.entry;
    let entry: BundleEntry | null;
    try {
      const bundle = readBundle(readFileSync(file), this.limits);
      entry = { bundle, source: sourceOf(bundle, scope, source), file, scope, account };
    } catch (err) {
      // An unreadable file in a bundle folder (or one stored before the limits were lowered) is
      // skipped, not fatal; the cache keeps the verdict, so it is logged once per file version.
      this.log.warn('bundle skipped: it cannot be read within the bundle limits', { file, error: (err as Error).message });
      entry = null;
    }
    this.cache.set(file, { mtimeMs, entry });
    return entry;
  }
}

export class BundleConflict extends Error {}

function statMtime(file: string): number {
  return statSync(file).mtimeMs;
}

export function compareVersions(a: string, b: string): number {
  const numeric = (v: string) => /^\d+(\.\d+)*$/.test(v);
  if (numeric(a) && numeric(b)) {
    const pa = a.split('.').map(Number);
    const pb = b.split('.').map(Number);
    for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
    return 0;
  }
  return a.localeCompare(b);
}
