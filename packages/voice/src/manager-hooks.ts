/**
 * Where the catalog, the capability data and the cloned-voice store plug into the manager. The manager
 * never builds them: the caller (the voice plugin) hands them over (constructor's third argument, or
 * `useHooks` once the manager exists, since the catalog reads the manager's selection). The library stays
 * usable without them: cloning then answers 501, and supported controls follow the engines' own
 * declarations. The shapes are structural so `ClonedVoiceStore`, `VoiceCloner`, `VoiceCatalog` and
 * `CapabilityRegistry` (src/cloning, src/catalog) plug in as they are.
 */
import type { TtsEngine } from './contracts.js';

/** A capability-support answer (reference B.8). */
export interface CapabilityAnswer {
  support: string;
  reason?: string | null;
}

/** `get_capability_support` (B.8); null when nothing is known. */
export interface CapabilityLookup {
  getCapabilitySupport(kind: string, feature: string, provider: string, model?: string | null, surface?: string): CapabilityAnswer | null;
}

/** The fields of a cloned voice the manager reads (B.11); remote clones keep `remote_*` in `meta`. */
export interface CloneRecordView {
  voice_id: string;
  name: string;
  engine: string;
  reference_text: string | null;
  meta?: Record<string, unknown>;
}

/** The cloned-voice store: lookups and edits (each throws its own 404 for an unknown id). */
export interface ClonedVoiceStoreHook {
  /** The record, or null when there is none (never throws for an unknown id). */
  find(voiceId: string): Promise<CloneRecordView | null>;
  list(): Promise<CloneRecordView[]>;
  rename(voiceId: string, name: string): Promise<unknown>;
  setReferenceText(voiceId: string, text: string | null): Promise<unknown>;
  delete(voiceId: string): Promise<unknown>;
  exportVoice(voiceId: string, path: string): Promise<string>;
  importVoice(path: string): Promise<string>;
}

export interface CloneCallOptions {
  name?: string | null;
  referenceText?: string | null;
  engine?: string | null;
  model?: string | null;
}

/** Makes clones (at a remote) and keeps them in the store; answers the new voice id. */
export interface VoiceClonerHook {
  cloneVoice(referenceAudioPath: string, options?: CloneCallOptions): Promise<string>;
  cloneVoiceFromBytes(bytes: Uint8Array, options?: CloneCallOptions & { filename?: string | null; contentType?: string | null; meta?: Record<string, unknown> }): Promise<string>;
}

/** The discovery catalog: `available_providers` and `voice_catalog` (B.7). */
export interface VoiceCatalogHook {
  availableProviders(): Promise<object>;
  voiceCatalog(provider?: string | null, model?: string | null, providersOnly?: boolean): Promise<object>;
}

export interface VoiceManagerHooks {
  capabilities?: CapabilityLookup;
  clonedVoices?: ClonedVoiceStoreHook;
  cloner?: VoiceClonerHook;
  catalog?: VoiceCatalogHook;
  /**
   * The engine that speaks a clone the manager cannot speak itself (a local cloning engine); remote
   * clones are spoken by their remote without this.
   */
  cloneEngineFor?(record: CloneRecordView): TtsEngine | undefined;
  /** Loaded local cloning engines, for `listResidentComponents` / `unloadCloningEngines`. */
  residentCloneEngines?(): { engine: string; model: string | null }[];
  unloadCloneEngines?(keepEngine?: string): Promise<number>;
}

/** What the catalog reads as the manager's current selection (its `ActiveSelection`). */
export interface ActiveSelectionView {
  ttsProvider: string | null;
  sttProvider: string | null;
  cloningProvider: string | null;
  ttsModel: string | null;
  sttModel: string | null;
  profile: string | null;
}
