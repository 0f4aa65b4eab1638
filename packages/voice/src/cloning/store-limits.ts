/**
 * Bounds of the cloned-voice store: every upload, name, text and import archive is capped, so a
 * hostile caller cannot fill the disk or memory through it. The voice plugin exposes these as
 * settings; these are the safe defaults.
 */
export interface CloneStoreLimits {
  /** Most bytes one reference audio file may have. */
  maxReferenceBytes: number;
  /** Most reference files one voice may keep. */
  maxReferenceFiles: number;
  /** Most bytes an import archive may have on disk. */
  maxArchiveBytes: number;
  /** Most bytes an import archive may inflate to, all entries together. */
  maxInflatedBytes: number;
  /** Most entries an import archive may hold. */
  maxArchiveEntries: number;
  /** Most bytes of `voice.json` (inside an archive) or of a remote's clone answer kept in `meta`. */
  maxRecordBytes: number;
  maxNameChars: number;
  maxReferenceTextChars: number;
  /** Most voices the store holds. */
  maxVoices: number;
}

export const DEFAULT_CLONE_STORE_LIMITS: CloneStoreLimits = {
  maxReferenceBytes: 25 * 1024 * 1024,
  maxReferenceFiles: 8,
  maxArchiveBytes: 64 * 1024 * 1024,
  maxInflatedBytes: 128 * 1024 * 1024,
  maxArchiveEntries: 32,
  maxRecordBytes: 64 * 1024,
  maxNameChars: 200,
  maxReferenceTextChars: 5000,
  maxVoices: 1000,
};

/** Reference audio suffixes local engines accept (reference B.11). */
export const LOCAL_REFERENCE_SUFFIXES = ['.wav', '.flac', '.ogg'];
/** Remote engines also accept these. */
export const REMOTE_REFERENCE_SUFFIXES = [...LOCAL_REFERENCE_SUFFIXES, '.mp3', '.mpeg', '.mpga', '.m4a', '.webm', '.aac'];
