/**
 * A cloned voice as the store keeps it (reference B.11 "Record"); the same shape travels in an
 * export's `voice.json`.
 */

export interface ClonedVoiceRecord {
  /** 32 lower-case hex characters (a random uuid4 without dashes); never taken from user input. */
  voice_id: string;
  name: string;
  /** Seconds since the epoch, with a fraction. */
  created_at: number;
  /** File names inside the voice's folder (`ref_0.wav`, ...). */
  reference_files: string[];
  reference_text: string | null;
  /** The cloning provider that holds the voice: `compatible` or `hosted`. */
  engine: string;
  /**
   * `source` (`bytes` or the upload's file name), `reference_text_source` (`manual`), and for remote
   * clones `remote_voice_id`, `remote_provider`, `remote_base_url`, `remote_clone_path`, `remote_response`.
   */
  meta: Record<string, unknown>;
}

/** What listings answer: the record with its id first (reference B.11 "Listing"). */
export type ClonedVoiceListing = ClonedVoiceRecord;

/** Anything that can list cloned voices (the store, or a stand-in when the manager has none). */
export interface ClonedVoiceSource {
  list(): Promise<ClonedVoiceRecord[]>;
}

const VOICE_ID = /^[0-9a-f]{32}$/;

/** True for an id the store could have made; everything else is refused before touching the disk. */
export function isVoiceId(value: unknown): value is string {
  return typeof value === 'string' && VOICE_ID.test(value);
}
