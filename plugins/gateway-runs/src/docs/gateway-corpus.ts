/**
 * Keel's own documentation corpus (seed 000 §8 "Docs corpus resolution"; reference
 * gateway-surfaces §9.1): the `KEEL_DOCS_CORPUS` file first (set but unusable is a 404 naming what
 * was checked, never a silent fallback), then the `llms.txt` of the source checkout the plugin runs
 * from, then the copy packaged with the plugin. Every file is read within `maxBytes`, must be a
 * regular UTF-8 file, and is never one inside the data folder (its tokens and keys live there).
 */
import { constants, promises as fs, realpathSync } from 'node:fs';
import path from 'node:path';
import { corpusNotFound, corpusOf, utf8OrNull, type DocsCorpus } from './corpus-text.js';

export const DOCS_CORPUS_ENV = 'KEEL_DOCS_CORPUS';
export const GATEWAY_APP_NAME = 'Keel';

export interface GatewayCorpusPlaces {
  /** The variable's value, read at each request (an operator may fix it without a restart of clients). */
  env: () => string | undefined;
  /** `llms.txt` at the root of the source checkout, or null when the plugin does not run from one. */
  checkoutFile: string | null;
  /** The copy shipped inside the plugin package. */
  packagedFile: string;
  dataDir: string;
  maxBytes: number;
}

type Read = { ok: true; text: string } | { ok: false; why: string; refused: boolean };

export async function gatewayCorpus(places: GatewayCorpusPlaces): Promise<DocsCorpus> {
  const override = places.env()?.trim();
  if (override) {
    if (!path.isAbsolute(override)) {
      throw corpusNotFound('docs_corpus_missing', `${DOCS_CORPUS_ENV} is set to '${override}', which is not an absolute path; set it to the absolute path of a text file or unset it.`, { candidates: [override] });
    }
    const read = await readCorpusFile(override, places);
    if (!read.ok) {
      const message = `${DOCS_CORPUS_ENV} is set, but ${read.why}; fix or unset it (Keel does not fall back to its own llms.txt while it is set). Checked: ${override}.`;
      throw corpusNotFound(read.refused ? 'docs_corpus_refused' : 'docs_corpus_missing', message, { candidates: [override] });
    }
    return corpusOf(GATEWAY_APP_NAME, `env:${DOCS_CORPUS_ENV}`, read.text);
  }
  const candidates: Array<[string, string]> = [...(places.checkoutFile ? [['checkout:llms.txt', places.checkoutFile] as [string, string]] : []), ['packaged:llms.txt', places.packagedFile]];
  const failures: string[] = [];
  for (const [source, file] of candidates) {
    const read = await readCorpusFile(file, places);
    if (read.ok) return corpusOf(GATEWAY_APP_NAME, source, read.text);
    failures.push(`${file} (${read.why})`);
  }
  throw corpusNotFound('docs_corpus_missing', `Keel's documentation corpus is not available: ${DOCS_CORPUS_ENV} is not set and no llms.txt could be read. Checked: ${failures.join('; ')}.`, { candidates: candidates.map(([, f]) => f) });
}

/** The file's text, or why it cannot be the corpus. Opened without blocking (a FIFO never hangs the request) and measured on the open descriptor. */
async function readCorpusFile(file: string, places: { dataDir: string; maxBytes: number }): Promise<Read> {
  let real: string;
  try {
    real = await fs.realpath(file);
  } catch {
    return { ok: false, why: `${file} does not exist`, refused: false };
  }
  if (isInside(real, realOrSelf(places.dataDir))) return { ok: false, why: `${file} lies inside Keel's data folder, which is never served as documentation`, refused: true };
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { ok: false, why: `${file} cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'})`, refused: false };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { ok: false, why: `${file} is not a regular file`, refused: true };
    if (stats.size > places.maxBytes) return { ok: false, why: `${file} holds ${stats.size} bytes, above the ${places.maxBytes}-byte limit (gateway-runs setting docs.maxCorpusBytes)`, refused: true };
    // Read one byte past the limit: a file that grew since the stat is still refused.
    const buffer = Buffer.alloc(Math.min(stats.size, places.maxBytes) + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < buffer.length; length += n) n = (await handle.read(buffer, length, buffer.length - length, length)).bytesRead;
    if (length > places.maxBytes) return { ok: false, why: `${file} is above the ${places.maxBytes}-byte limit (gateway-runs setting docs.maxCorpusBytes)`, refused: true };
    const text = utf8OrNull(buffer.subarray(0, length));
    return text === null ? { ok: false, why: `${file} is not UTF-8 text`, refused: true } : { ok: true, text };
  } finally {
    await handle.close();
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** `llms.txt` of the source checkout `pluginRoot` lies in (`<root>/plugins/<name>`), or null when the plugin was installed from a package. */
export function checkoutCorpusFile(pluginRoot: string, readJson: (file: string) => unknown): string | null {
  const root = path.resolve(pluginRoot, '..', '..');
  try {
    const manifest = readJson(path.join(root, 'package.json')) as { name?: unknown; workspaces?: unknown };
    return manifest.name === 'keel' && Array.isArray(manifest.workspaces) ? path.join(root, 'llms.txt') : null;
  } catch {
    return null;
  }
}
