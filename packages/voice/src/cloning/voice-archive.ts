/**
 * The export format of a cloned voice (reference B.11): a ZIP holding `voice.json` (the record) and
 * `refs/<file>` for each reference. Reading never trusts the archive: fflate's streaming `Unzip`
 * counts the entries as they come, each deflated entry is inflated by zlib with `maxOutputLength`
 * set to what is left of the budget (a zip bomb costs at most the limit), and only `voice.json` and
 * flat `refs/<name>` entries are kept — any other path, `..` or absolute name refuses the archive.
 */
import { inflateRawSync } from 'node:zlib';
import { Unzip, zipSync, type FlateError, type UnzipDecoder } from 'fflate';
import { VoiceError } from '../contracts.js';
import type { CloneStoreLimits } from './store-limits.js';

export interface VoiceArchive {
  record: unknown;
  /** Reference files by their name inside `refs/`, in archive order. */
  refs: { name: string; bytes: Uint8Array }[];
}

/** A reference's name inside `refs/`: a plain file name, no folders. */
const REF_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function writeVoiceArchive(record: unknown, refs: { name: string; bytes: Uint8Array }[]): Uint8Array {
  const files: Record<string, Uint8Array> = { 'voice.json': new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`) };
  for (const ref of refs) files[`refs/${ref.name}`] = ref.bytes;
  return zipSync(files, { level: 6 });
}

const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
const SLICE = 64 * 1024;

export function readVoiceArchive(bytes: Uint8Array, limits: CloneStoreLimits): VoiceArchive {
  const bad = (why: string) => new VoiceError(`The voice archive is refused: ${why}.`, 400, 'invalid_voice_archive');
  if (bytes.length > limits.maxArchiveBytes) throw new VoiceError(`The voice archive has ${bytes.length} bytes, more than the ${limits.maxArchiveBytes} allowed (clone store setting maxArchiveBytes).`, 413, 'voice_archive_too_large');
  if (!LOCAL_HEADER.every((b, i) => bytes[i] === b)) throw bad('it is not a zip archive');
  let failure: VoiceError | null = null;
  let inflated = 0;
  let entries = 0;
  let record: Uint8Array | null = null;
  const refs: { name: string; bytes: Uint8Array }[] = [];
  const unfinished = new Set<string>();
  const tooLarge = () => new VoiceError(`The voice archive inflates to more than ${limits.maxInflatedBytes} bytes (clone store setting maxInflatedBytes).`, 413, 'voice_archive_too_large');
  const unzip = new Unzip((file) => {
    if (failure) return;
    entries += 1;
    if (entries > limits.maxArchiveEntries) return void (failure = bad(`it holds more than ${limits.maxArchiveEntries} entries`));
    const name = file.name;
    const isRecord = name === 'voice.json';
    const refName = name.startsWith('refs/') ? name.slice(5) : null;
    if (name.endsWith('/') && (name === 'refs/' || !name.includes('..'))) return; // folder entries carry nothing
    if (!isRecord && (refName === null || !REF_NAME.test(refName))) return void (failure = bad(`it holds the entry ${JSON.stringify(name.slice(0, 80))}; only voice.json and refs/<file name> are allowed`));
    if (file.compression !== 0 && file.compression !== 8) return void (failure = bad(`${name} uses zip compression method ${file.compression}; only stored and deflate are read`));
    const chunks: Uint8Array[] = [];
    let size = 0;
    unfinished.add(name);
    file.ondata = (err, data, final) => {
      if (failure) return;
      if (err) return void (failure = bad(`${name} cannot be inflated (${err.message})`));
      inflated += data.length;
      size += data.length;
      if (inflated > limits.maxInflatedBytes) return void (failure = tooLarge());
      if (isRecord && size > limits.maxRecordBytes) return void (failure = bad(`voice.json is larger than ${limits.maxRecordBytes} bytes`));
      if (!isRecord && size > limits.maxReferenceBytes) return void (failure = bad(`${name} is larger than ${limits.maxReferenceBytes} bytes (clone store setting maxReferenceBytes)`));
      chunks.push(data);
      if (!final) return;
      unfinished.delete(name);
      const whole = Buffer.concat(chunks);
      if (isRecord) {
        if (record) return void (failure = bad('it holds voice.json twice'));
        record = whole;
      } else {
        if (refs.some((r) => r.name === refName)) return void (failure = bad(`it holds ${name} twice`));
        refs.push({ name: refName!, bytes: whole });
      }
    };
    file.start();
  });
  unzip.register(boundedInflate(() => limits.maxInflatedBytes - inflated, () => (failure ??= tooLarge())));
  try {
    for (let offset = 0; offset < bytes.length && !failure; offset += SLICE) unzip.push(bytes.subarray(offset, offset + SLICE), offset + SLICE >= bytes.length);
  } catch (err) {
    failure ??= bad(`it is not a readable zip archive (${(err as Error).message})`);
  }
  if (failure) throw failure;
  if (unfinished.size > 0) throw bad(`it is truncated (${[...unfinished][0]} is incomplete)`);
  if (!record) throw bad('it has no voice.json');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(record).toString('utf8'));
  } catch {
    throw bad('voice.json is not JSON');
  }
  return { record: parsed, refs };
}

/** A deflate decoder that inflates an entry once with zlib, allowed at most `remaining()` bytes of output. */
function boundedInflate(remaining: () => number, onTooLarge: () => void) {
  return class BoundedInflate implements UnzipDecoder {
    static compression = 8;
    ondata: UnzipDecoder['ondata'] = () => {};
    private readonly compressed: Uint8Array[] = [];

    push(chunk: Uint8Array, final: boolean): void {
      this.compressed.push(chunk);
      if (!final) return;
      let out: Uint8Array<ArrayBuffer>;
      try {
        out = inflateRawSync(Buffer.concat(this.compressed), { maxOutputLength: Math.max(1, remaining()) }) as Uint8Array<ArrayBuffer>;
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') onTooLarge();
        else this.ondata(Object.assign(new Error((err as Error).message), { code: 0 }) as FlateError, new Uint8Array(0), true);
        return;
      }
      this.ondata(null, out, true);
    }
  };
}
