/** `@keel/voice`: the speech library. See README.md. */
export * from './contracts.js';
// The voice manager and its parts (reference B.1–B.6, B.9, B.10, B.12): helper "manager".
export { VoiceManager } from './voice-manager.js';
export type { VoiceManagerOptions, VoiceEngineFactories, SpeakToBytesOptions, TextStreamOptions, TranscribeOptions } from './manager-options.js';
export type { SpeakOptions } from './speech-request.js';
export type {
  ActiveSelectionView,
  CapabilityAnswer,
  CapabilityLookup,
  CloneCallOptions,
  ClonedVoiceStoreHook,
  CloneRecordView,
  VoiceCatalogHook,
  VoiceClonerHook,
  VoiceManagerHooks,
} from './manager-hooks.js';
export { SpeechSegmenter, splitForSpeech, FIRST_SEGMENT_MAX_CHARS, SEGMENT_MAX_CHARS } from './segmenter.js';
export type { SegmenterOptions } from './segmenter.js';
export { TtsTextStream } from './tts-text-stream.js';
export type { AudioChunk, TtsTextStreamOptions } from './tts-text-stream.js';
export { VoiceModeMachine, VOICE_MODES, DEFAULT_VOICE_MODE, STOP_PHRASES, isStopPhrase } from './voice-mode.js';
export type { VoiceMode, PlaybackState, ListenerPolicy, VoiceEvent, VoiceMachineState } from './voice-mode.js';
export { normaliseQualityPreset, QUALITY_PRESETS, DEFAULT_QUALITY_PRESET } from './quality-preset.js';
export { normaliseDeliveryMode, deliveryModes } from './delivery-mode.js';
export type { DeliveryMode, DeliveryModes } from './delivery-mode.js';
export { LANGUAGE_NAMES, languageName } from './languages.js';
export { resolveEngineId } from './engine-resolution.js';
export { AUDIO_CONTENT_TYPES, AUDIO_FORMATS, normaliseAudioFormat, encodePcm, decodeWav, wavDurationS } from './audio-encoding.js';
export { sanitizeSyntax } from './sanitize-syntax.js';
export { DEFAULT_CODEBOOK } from './codebook-settings.js';
export type { CodebookSettings, CodebookPredictor, CodebookSampler } from './codebook-settings.js';
export type { PreloadResult, UnloadResult, ResidentComponent } from './residency.js';
// Remote engines (hosted, compatible): src/remote/.
export { RemoteTtsEngine, hostedTtsFactory, compatibleTtsFactory } from './remote/remote-tts-engine.js';
export { RemoteSttEngine, hostedSttFactory, compatibleSttFactory } from './remote/remote-stt-engine.js';
export { RemoteVoiceCloner, cloneIdOf, CLONE_ID_MISSING, HOSTED_CONSENT_MISSING as REMOTE_CLONE_CONSENT_MISSING } from './remote/remote-voice-cloner.js';
export type { RemoteCloneInput, RemoteCloneResult as RemoteClonerResult } from './remote/remote-voice-cloner.js';
export { RemoteHttpClient } from './remote/http-client.js';
export { HOSTED_KEY_MISSING, COMPATIBLE_URL_MISSING, HOSTED_BUILTIN_VOICES as HOSTED_TTS_VOICES } from './remote/remote-settings.js';
// Discovery and capability support (reference B.7, B.8, B.9): src/catalog/. Named one by one so the
// manager's own remote helpers (src/remote/) and these never collide in this index.
export { VoiceCatalog } from './catalog/voice-catalog.js';
export type { VoiceCatalogOptions } from './catalog/voice-catalog.js';
export type { AvailableProviders, VoiceCatalogPayload } from './catalog/catalog-payload.js';
export { SPEECH_REQUEST_CONTRACT } from './catalog/provider-entries.js';
export type { ModelVariant, SttProviderCatalog, TtsProviderCatalog } from './catalog/provider-entries.js';
export type { VoiceEntry } from './catalog/records.js';
export { LOCAL_CLONING_UNAVAILABLE, HOSTED_CONSENT_MISSING as HOSTED_CLONE_CONSENT_MISSING } from './catalog/providers.js';
export type { ActiveSelection, ProviderDetail, RuntimeStatus, UnavailableCode, UnavailableRecord } from './catalog/providers.js';
export { DiscoveryCache } from './catalog/discovery-cache.js';
export { ProbeBudget, discoverySettings } from './catalog/discovery-settings.js';
export type { DiscoverySettings } from './catalog/discovery-settings.js';
export { normalizeProvider, sortProviders, splitSelector, PROVIDER_KINDS } from './catalog/provider-ids.js';
export type { ProviderKind } from './catalog/provider-ids.js';
export { parseVoices, probeRemoteModels, probeRemoteVoices } from './catalog/remote-discovery.js';
export type { RemoteModels, RemoteVoice } from './catalog/remote-discovery.js';
export {
  CAPABILITY_FEATURES,
  CAPABILITY_SURFACES,
  COMPATIBILITY_VERSION,
  SUPPORT_LEVELS,
  CapabilityDataError,
  CapabilityRegistry,
  defaultCapabilityRegistry,
  findCompatibleModels,
  getCapabilitySupport,
} from './catalog/capabilities.js';
export type { CapabilitySupport, CompatibilityCatalog, CompatibleModel, ProviderCapabilities, SupportLevel } from './catalog/capabilities.js';
// Cloned voices (reference B.11, B.12): src/cloning/.
export { ClonedVoiceStore, unknownVoice } from './cloning/cloned-voice-store.js';
export type { NewClonedVoice } from './cloning/cloned-voice-store.js';
export { VoiceCloner, LOCAL_CLONING_ENGINES, REMOTE_CLONING_ENGINES } from './cloning/voice-cloner.js';
export type { CloneBytesOptions, CloneOptions, VoiceClonerOptions } from './cloning/voice-cloner.js';
export { DEFAULT_CLONE_STORE_LIMITS } from './cloning/store-limits.js';
export type { CloneStoreLimits } from './cloning/store-limits.js';
export { readVoiceArchive, writeVoiceArchive } from './cloning/voice-archive.js';
export type { VoiceArchive } from './cloning/voice-archive.js';
export { voiceIdIn } from './cloning/remote-clone.js';
export { isVoiceId } from './cloning/voice-record.js';
export type { ClonedVoiceRecord, ClonedVoiceSource } from './cloning/voice-record.js';
