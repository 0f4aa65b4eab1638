/** `@keel/voice`: the speech library. See README.md. */
export * from './contracts.js';
export { VoiceManager } from './voice-manager.js';
export type { VoiceManagerOptions, VoiceEngineFactories, SpeakOptions, SpeakToBytesOptions, TextStreamOptions, TranscribeOptions } from './voice-manager.js';
export type { CapabilityLookup, CapabilitySupport, ClonedVoiceRecord, ClonedVoices, CloneRequest, VoiceCatalog, VoiceManagerHooks } from './manager-hooks.js';
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
export { AUDIO_CONTENT_TYPES, AUDIO_FORMATS, normaliseAudioFormat, encodePcm, decodeWav } from './audio-encoding.js';
export { sanitizeSyntax } from './sanitize-syntax.js';
export type { PreloadResult, UnloadResult, ResidentComponent } from './residency.js';
export { RemoteTtsEngine, hostedTtsFactory, compatibleTtsFactory, REMOTE_TTS_FORMATS } from './remote/remote-tts-engine.js';
export { RemoteSttEngine, hostedSttFactory, compatibleSttFactory, REMOTE_STT_FORMATS } from './remote/remote-stt-engine.js';
export { RemoteVoiceCloner, cloneIdOf, HOSTED_CONSENT_MISSING, CLONE_ID_MISSING } from './remote/remote-voice-cloner.js';
export type { RemoteCloneInput, RemoteCloneResult } from './remote/remote-voice-cloner.js';
export { RemoteHttpClient } from './remote/http-client.js';
export { profilesFromVoiceAnswer, modelIdsFromAnswer, isTtsModel, isSttModel } from './remote/discovery-shapes.js';
export {
  HOSTED_KEY_MISSING,
  COMPATIBLE_URL_MISSING,
  HOSTED_BUILTIN_VOICES,
  HOSTED_TTS_MODELS,
  HOSTED_STT_MODELS,
  HOSTED_DEFAULT_BASE_URL,
  DEFAULT_REMOTE_TIMEOUT_S,
  DEFAULT_DISCOVERY_TIMEOUT_S,
  MIN_DISCOVERY_TTL_S,
  remoteTimeoutS,
  discoveryTimeoutS,
  discoveryTtlS,
  hostedEndpoint,
  compatibleEndpoint,
} from './remote/remote-settings.js';
export type { RemoteEndpoint } from './remote/remote-settings.js';
