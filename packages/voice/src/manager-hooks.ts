/**
 * Where the catalog, the capability data and the cloned-voice store plug into the manager. The manager
 * never builds them: the caller (the voice plugin) hands them over in the constructor's third argument,
 * so the library stays usable without them (cloning then answers 501, discovery only the active engine).
 */
import type { TtsEngine } from './contracts.js';

/** A capability-support answer (reference B.8). */
export interface CapabilitySupport {
  support: 'native' | 'emulated' | 'conditional' | 'unsupported';
  reason?: string | null;
  metadata?: Record<string, unknown>;
}

/** `get_capability_support` of the catalog (B.8); null when nothing is known. */
export interface CapabilityLookup {
  getCapabilitySupport(kind: 'tts' | 'stt' | 'cloning', feature: string, provider: string, model?: string | null, surface?: string): CapabilitySupport | null;
}

/** A cloned voice as the store keeps it (B.11); the manager reads only the typed fields. */
export interface ClonedVoiceRecord {
  voice_id: string;
  name: string;
  engine: string;
  reference_text: string | null;
  created_at?: number;
  reference_files?: string[];
  meta?: Record<string, unknown>;
  /** Remote clones: the id the remote speaks it by, and where (B.11, B.12). */
  remote_voice_id?: string;
  remote_provider?: string;
  remote_base_url?: string;
  [field: string]: unknown;
}

/** What a new clone is made from. */
export interface CloneRequest {
  bytes: Buffer;
  filename: string;
  name?: string;
  referenceText?: string;
  /** Cloning engine id (`compatible`, `hosted`, or a local one). */
  engine: string;
  model?: string;
  meta?: Record<string, unknown>;
}

/**
 * The cloned-voice store (helper "catalog", src/cloning/). `get` is all the manager needs to speak a
 * clone; the other calls are what the manager's cloning methods delegate to.
 */
export interface ClonedVoices {
  get(voiceId: string): Promise<ClonedVoiceRecord | undefined>;
  list(): Promise<ClonedVoiceRecord[]>;
  /** Creates a clone (remote: through the engine's clone endpoint) and answers its voice id. */
  create(request: CloneRequest): Promise<string>;
  rename(voiceId: string, name: string): Promise<boolean>;
  remove(voiceId: string): Promise<boolean>;
  setReferenceText(voiceId: string, text: string): Promise<boolean>;
  exportVoice(voiceId: string, path: string): Promise<string>;
  importVoice(path: string): Promise<string>;
  /**
   * The engine that speaks a clone, when the store knows one better than the manager's rule (remote
   * clones speak through the compatible/hosted engine with `voice: remote_voice_id`).
   */
  engineFor?(record: ClonedVoiceRecord): TtsEngine | undefined;
  /** Loaded local cloning engines, for `listResidentComponents` and `unloadCloningEngines`. */
  residentEngines?(): { engine: string; model: string | null }[];
  unloadEngines?(keepEngine?: string): Promise<number>;
}

/** The discovery catalog (helper "catalog", src/catalog/): `voice_catalog` and `available_providers`. */
export interface VoiceCatalog {
  voiceCatalog(manager: unknown, options?: { provider?: string; model?: string; providersOnly?: boolean }): Promise<Record<string, unknown>>;
  availableProviders(manager: unknown): Promise<Record<string, unknown>>;
}

export interface VoiceManagerHooks {
  capabilities?: CapabilityLookup;
  clonedVoices?: ClonedVoices;
  catalog?: VoiceCatalog;
}
