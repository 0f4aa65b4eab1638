/** `@keel/voice`: the speech library. See README.md. */
export * from './contracts.js';
// Discovery and capability support (reference B.7, B.8, B.9): src/catalog/.
export * from './catalog/capabilities.js';
export * from './catalog/discovery-cache.js';
export * from './catalog/discovery-settings.js';
export * from './catalog/provider-ids.js';
export * from './catalog/providers.js';
export * from './catalog/records.js';
export * from './catalog/remote-discovery.js';
export * from './catalog/remote-http.js';
export * from './catalog/voice-catalog.js';
// Cloned voices (reference B.11, B.12): src/cloning/.
export * from './cloning/cloned-voice-store.js';
export * from './cloning/remote-clone.js';
export * from './cloning/store-limits.js';
export * from './cloning/voice-archive.js';
export * from './cloning/voice-cloner.js';
export * from './cloning/voice-record.js';
