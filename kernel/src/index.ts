/** `@keel/kernel`: boot Keel from a config, embed one plugin elsewhere, or run the CLI. */
export { Kernel } from './kernel.js';
export type { KernelOptions, InlinePlugin } from './kernel.js';
export { BootError } from './boot-error.js';
export { loadConfigFile, buildConfig, overridesFromEnv } from './config/load-config.js';
export type { ConfigOverrides, LoadedConfig } from './config/load-config.js';
export { kernelConfigSchema, DEFAULT_CONFIG_PATH } from './config/kernel-config.js';
export type { KernelConfig, LiveConfig, PluginEntry, ServerConfig } from './config/kernel-config.js';
export { embedPlugin } from './embed/embed-plugin.js';
export type { EmbedOptions, EmbeddedPlugin } from './embed/embed-plugin.js';
export { KERNEL_VERSION } from './version.js';
