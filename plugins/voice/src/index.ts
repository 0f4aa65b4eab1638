/** Placeholder until the plugin lands. */
export const VOICE_PLUGIN_PACKAGE = '@keel/plugin-voice';
