/**
 * The cloned-voice store (reference B.11): one folder per voice under the store's directory holding
 * its reference audio (`<id>/ref_<i><ext>`), and `index.json` mapping each voice id to its record.
 * Ids are made here (random, 32 hex characters) and checked on every call, so no path is ever built
 * from user input; imports always get a new id and their files new names, so an archive can neither
 * write outside the store nor replace another voice.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { VoiceError } from '../contracts.js';
import { DEFAULT_CLONE_STORE_LIMITS, REMOTE_REFERENCE_SUFFIXES, type CloneStoreLimits } from './store-limits.js';
import { readVoiceArchive, writeVoiceArchive } from './voice-archive.js';
import { isVoiceId, type ClonedVoiceRecord, type ClonedVoiceSource } from './voice-record.js';

export interface NewClonedVoice {
  /** The reference audio, in order; `suffix` is the file's extension (`.wav`, ...). */
  references: { bytes: Uint8Array; suffix: string }[];
  name?: string | null;
  referenceText?: string | null;
  engine: string;
  meta?: Record<string, unknown>;
}

const INDEX = 'index.json';
const REF_FILE = /^ref_\d{1,3}\.[a-z0-9]{1,8}$/;
const ENGINE_ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export class ClonedVoiceStore implements ClonedVoiceSource {
  readonly limits: CloneStoreLimits;
  /** Mutations run one at a time so index.json never loses a concurrent write. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    limits: Partial<CloneStoreLimits> = {},
  ) {
    this.limits = { ...DEFAULT_CLONE_STORE_LIMITS, ...limits };
  }

  /** Every voice, newest first. */
  async list(): Promise<ClonedVoiceRecord[]> {
    const index = await this.readIndex();
    return Object.values(index).sort((a, b) => b.created_at - a.created_at || a.voice_id.localeCompare(b.voice_id));
  }

  /** The voice's record; 404 "Unknown voice_id: <id>" when there is none. */
  async get(voiceId: string): Promise<ClonedVoiceRecord> {
    const record = (await this.readIndex())[this.checkId(voiceId)];
    if (!record) throw unknownVoice(voiceId);
    return record;
  }

  /** The voice's record, or null (no error) when there is none. */
  async find(voiceId: string): Promise<ClonedVoiceRecord | null> {
    if (!isVoiceId(voiceId)) return null;
    return (await this.readIndex())[voiceId] ?? null;
  }

  async create(voice: NewClonedVoice): Promise<ClonedVoiceRecord> {
    const name = voice.name === undefined || voice.name === null ? null : this.checkName(voice.name);
    const referenceText = this.checkReferenceText(voice.referenceText);
    if (!ENGINE_ID.test(voice.engine)) throw new VoiceError('A cloned voice needs a provider id as its engine.', 400, 'invalid_engine');
    if (voice.references.length === 0) throw new VoiceError('A cloned voice needs at least one reference audio file.', 400, 'missing_reference_audio');
    if (voice.references.length > this.limits.maxReferenceFiles) throw new VoiceError(`A cloned voice keeps at most ${this.limits.maxReferenceFiles} reference files (clone store setting maxReferenceFiles).`, 400, 'too_many_references');
    const suffixes = voice.references.map((ref) => this.checkReference(ref.bytes, ref.suffix));
    return this.serial(async () => {
      const index = await this.readIndex();
      if (Object.keys(index).length >= this.limits.maxVoices) throw new VoiceError(`The clone store is full (${this.limits.maxVoices} voices, clone store setting maxVoices); delete a voice first.`, 507, 'clone_store_full');
      const voiceId = randomUUID().replace(/-/g, '');
      const folder = join(this.dir, voiceId);
      await mkdir(this.dir, { recursive: true });
      await mkdir(folder); // not recursive: fails rather than reuse a folder that exists
      try {
        const files: string[] = [];
        for (const [i, ref] of voice.references.entries()) {
          const file = `ref_${i}${suffixes[i]}`;
          await writeFile(join(folder, file), ref.bytes, { flag: 'wx' });
          files.push(file);
        }
        const meta: Record<string, unknown> = { ...(voice.meta ?? {}) };
        if (referenceText !== null) meta.reference_text_source ??= 'manual';
        const record: ClonedVoiceRecord = {
          voice_id: voiceId,
          name: name ?? `voice_${voiceId.slice(0, 8)}`,
          // Strictly after every voice already here, so "newest first" holds even within one millisecond.
          created_at: Math.max(Date.now() / 1000, ...Object.values(index).map((r) => r.created_at + 1e-6)),
          reference_files: files,
          reference_text: referenceText,
          engine: voice.engine,
          meta,
        };
        index[voiceId] = record;
        await this.writeIndex(index);
        return record;
      } catch (err) {
        await rm(folder, { recursive: true, force: true });
        throw err;
      }
    });
  }

  async rename(voiceId: string, name: string): Promise<true> {
    const checked = this.checkName(name);
    return this.update(voiceId, (record) => void (record.name = checked));
  }

  /** Sets (or with null clears) the transcript of the reference audio. */
  async setReferenceText(voiceId: string, text: string | null): Promise<true> {
    const checked = this.checkReferenceText(text);
    return this.update(voiceId, (record) => {
      record.reference_text = checked;
      if (checked === null) delete record.meta.reference_text_source;
      else record.meta.reference_text_source = 'manual';
    });
  }

  /** Removes the voice's folder, then its index entry. */
  async delete(voiceId: string): Promise<true> {
    const id = this.checkId(voiceId);
    return this.serial(async () => {
      const index = await this.readIndex();
      if (!index[id]) throw unknownVoice(voiceId);
      await rm(join(this.dir, id), { recursive: true, force: true });
      delete index[id];
      await this.writeIndex(index);
      return true as const;
    });
  }

  /** The bytes of one of the voice's reference files (what a cloning engine sends or reads). */
  async readReference(voiceId: string, index = 0): Promise<{ file: string; bytes: Buffer }> {
    const record = await this.get(voiceId);
    const file = record.reference_files[index];
    if (file === undefined) throw new VoiceError(`Voice ${record.voice_id} has no reference file ${index}.`, 404, 'unknown_reference');
    return { file, bytes: await readFile(join(this.dir, record.voice_id, file)) };
  }

  /** The export archive: `voice.json` and `refs/<file>` (reference B.11 "Export"). */
  async exportArchive(voiceId: string): Promise<Uint8Array> {
    const record = await this.get(voiceId);
    const refs = await Promise.all(record.reference_files.map(async (file) => ({ name: file, bytes: await readFile(join(this.dir, record.voice_id, file)) })));
    return writeVoiceArchive(record, refs);
  }

  /** Writes the export archive to `path` (a `.zip` suffix is forced) and answers the path written. */
  async exportVoice(voiceId: string, path: string): Promise<string> {
    const target = path.toLowerCase().endsWith('.zip') ? path : `${path}.zip`;
    await writeFile(target, await this.exportArchive(voiceId));
    return target;
  }

  /** Imports an export archive as a new voice (new id, new file names) and answers its id. */
  async importArchive(bytes: Uint8Array): Promise<string> {
    const archive = readVoiceArchive(bytes, this.limits);
    const raw = archive.record && typeof archive.record === 'object' && !Array.isArray(archive.record) ? (archive.record as Record<string, unknown>) : null;
    if (!raw) throw new VoiceError('The voice archive is refused: voice.json is not an object.', 400, 'invalid_voice_archive');
    // The record's own order of references, when it names them; otherwise the archive's order.
    const listed = Array.isArray(raw.reference_files) ? raw.reference_files.filter((f): f is string => typeof f === 'string') : [];
    const refs = [...archive.refs].sort((a, b) => rank(listed, a.name) - rank(listed, b.name));
    const engine = typeof raw.engine === 'string' ? raw.engine : 'compatible';
    const meta = raw.meta && typeof raw.meta === 'object' && !Array.isArray(raw.meta) ? { ...(raw.meta as Record<string, unknown>) } : {};
    if (JSON.stringify(meta).length > this.limits.maxRecordBytes) throw new VoiceError('The voice archive is refused: its meta is too large.', 400, 'invalid_voice_archive');
    if (isVoiceId(raw.voice_id)) meta.imported_from = raw.voice_id;
    const record = await this.create({
      references: refs.map((ref) => ({ bytes: ref.bytes, suffix: extname(ref.name) })),
      name: typeof raw.name === 'string' ? raw.name : null,
      referenceText: typeof raw.reference_text === 'string' ? raw.reference_text : null,
      engine,
      meta,
    });
    return record.voice_id;
  }

  /** Imports the archive at `path` (a regular file no larger than `maxArchiveBytes`). */
  async importVoice(path: string): Promise<string> {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
      throw new VoiceError(`The voice archive ${path} cannot be opened (${err.code ?? err.message}).`, 400, 'invalid_voice_archive');
    });
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new VoiceError(`The voice archive ${path} is not a regular file.`, 400, 'invalid_voice_archive');
      if (stat.size > this.limits.maxArchiveBytes) throw new VoiceError(`The voice archive has ${stat.size} bytes, more than the ${this.limits.maxArchiveBytes} allowed (clone store setting maxArchiveBytes).`, 413, 'voice_archive_too_large');
      return await this.importArchive(await handle.readFile());
    } finally {
      await handle.close();
    }
  }

  private async update(voiceId: string, change: (record: ClonedVoiceRecord) => void): Promise<true> {
    const id = this.checkId(voiceId);
    return this.serial(async () => {
      const index = await this.readIndex();
      const record = index[id];
      if (!record) throw unknownVoice(voiceId);
      change(record);
      await this.writeIndex(index);
      return true as const;
    });
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => {});
    return run;
  }

  /** index.json, with anything that is not a well-formed record dropped; unreadable counts as empty. */
  private async readIndex(): Promise<Record<string, ClonedVoiceRecord>> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(join(this.dir, INDEX), 'utf8'));
    } catch {
      return {};
    }
    const out: Record<string, ClonedVoiceRecord> = {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return out;
    for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
      const record = wellFormed(id, value);
      if (record) out[id] = record;
    }
    return out;
  }

  /** Written to a temporary name and renamed, so a crash leaves the old index or the new one. */
  private async writeIndex(index: Record<string, ClonedVoiceRecord>): Promise<void> {
    const sorted = Object.fromEntries(Object.keys(index).sort().map((id) => [id, sortKeys(index[id]!)]));
    const tmp = join(this.dir, `${INDEX}.${process.pid}.${randomUUID()}.tmp`);
    await writeFile(tmp, `${JSON.stringify(sorted, null, 2)}\n`);
    await rename(tmp, join(this.dir, INDEX));
  }

  private checkId(voiceId: string): string {
    if (!isVoiceId(voiceId)) throw unknownVoice(voiceId);
    return voiceId;
  }

  /** The trimmed name, or a 400 when it is empty, too long or not printable. */
  checkName(name: unknown): string {
    const value = typeof name === 'string' ? name.trim() : '';
    if (value === '' || value.length > this.limits.maxNameChars || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
      throw new VoiceError(`A voice name is 1 to ${this.limits.maxNameChars} printable characters.`, 400, 'invalid_voice_name');
    }
    return value;
  }

  /** The trimmed reference text (null when empty), or a 400 when too long. */
  checkReferenceText(text: unknown): string | null {
    if (text === undefined || text === null) return null;
    if (typeof text !== 'string') throw new VoiceError('The reference text must be a string.', 400, 'invalid_reference_text');
    const value = text.trim();
    if (value.length > this.limits.maxReferenceTextChars) throw new VoiceError(`The reference text is longer than ${this.limits.maxReferenceTextChars} characters (clone store setting maxReferenceTextChars).`, 400, 'invalid_reference_text');
    return value === '' ? null : value;
  }

  private checkReference(bytes: Uint8Array, suffix: string): string {
    const ext = (suffix.startsWith('.') ? suffix : `.${suffix}`).toLowerCase();
    if (!REMOTE_REFERENCE_SUFFIXES.includes(ext)) throw new VoiceError(`Unsupported reference audio format: ${ext.slice(0, 16)}. Provide WAV/FLAC/OGG.`, 400, 'unsupported_reference_format');
    if (bytes.length === 0) throw new VoiceError('The reference audio is empty.', 400, 'missing_reference_audio');
    if (bytes.length > this.limits.maxReferenceBytes) throw new VoiceError(`The reference audio has ${bytes.length} bytes, more than the ${this.limits.maxReferenceBytes} allowed (clone store setting maxReferenceBytes).`, 413, 'reference_too_large');
    return ext;
  }
}

/** The reference's 404 (B.2: "Unknown voice_id: <id>"); the id is echoed short. */
export function unknownVoice(voiceId: unknown): VoiceError {
  const shown = typeof voiceId === 'string' ? voiceId.slice(0, 64) : String(voiceId).slice(0, 64);
  return new VoiceError(`Unknown voice_id: ${shown}`, 404, 'unknown_voice');
}

function wellFormed(id: string, value: unknown): ClonedVoiceRecord | null {
  if (!isVoiceId(id) || !value || typeof value !== 'object') return null;
  const r = value as Record<string, unknown>;
  const files = Array.isArray(r.reference_files) ? r.reference_files.filter((f): f is string => typeof f === 'string' && REF_FILE.test(f)) : [];
  if (typeof r.name !== 'string' || typeof r.engine !== 'string') return null;
  return {
    voice_id: id,
    name: r.name,
    created_at: typeof r.created_at === 'number' && Number.isFinite(r.created_at) ? r.created_at : 0,
    reference_files: files,
    reference_text: typeof r.reference_text === 'string' ? r.reference_text : null,
    engine: r.engine,
    meta: r.meta && typeof r.meta === 'object' && !Array.isArray(r.meta) ? (r.meta as Record<string, unknown>) : {},
  };
}

function sortKeys(record: ClonedVoiceRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function rank(listed: string[], name: string): number {
  const at = listed.indexOf(name);
  return at < 0 ? listed.length : at;
}
