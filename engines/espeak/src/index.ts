/** Placeholder until the engine lands. */
export const ENGINE_PACKAGE = 'engines/espeak';
