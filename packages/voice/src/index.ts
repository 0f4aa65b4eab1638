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
export { AUDIO_CONTENT_TYPES, AUDIO_FORMATS, normaliseAudioFormat, encodePcm, decodeWav } from './audio-encoding.js';
export { sanitizeSyntax } from './sanitize-syntax.js';
export type { PreloadResult, UnloadResult, ResidentComponent } from './residency.js';
// Remote engines (hosted, compatible): src/remote/.
export { RemoteTtsEngine, hostedTtsFactory, compatibleTtsFactory } from './remote/remote-tts-engine.js';
export { RemoteSttEngine, hostedSttFactory, compatibleSttFactory } from './remote/remote-stt-engine.js';
export { RemoteVoiceCloner, cloneIdOf, CLONE_ID_MISSING, HOSTED_CONSENT_MISSING as REMOTE_CLONE_CONSENT_MISSING } from './remote/remote-voice-cloner.js';
export type { RemoteCloneInput, RemoteCloneResult as RemoteClonerResult } from './remote/remote-voice-cloner.js';
export { RemoteHttpClient } from './remote/http-client.js';
export { HOSTED_KEY_MISSING, COMPATIBLE_URL_MISSING, HOSTED_BUILTIN_VOICES as HOSTED_TTS_VOICES } from './remote/remote-settings.js';
