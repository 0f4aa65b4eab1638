/** `@keel/voice`: the speech library. See README.md. */
export * from './contracts.js';
