/** `@keel/voice`: the speech library. See README.md. */
export * from './contracts.js';
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
