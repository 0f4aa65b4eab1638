/**
 * The plugin's parts written in their own files (the flow node types, the web example and its
 * page): each is a function of what `setup` built, returning what it adds. `index.ts` lists them in
 * `VOICE_PARTS` and merges their routes, pages, health fields, start and stop with its own.
 */
import type { AnyRoute, Logger, Paths, PluginPage, WorkerPools, Clock, AuthService } from '@keel/plugin-sdk';
import type { NodeTypeRegistry } from '@keel/plugin-gateway-runs';
import type { ArtifactsService } from '@keel/plugin-artifacts';
import type { VoiceConfig } from './config.js';
import type { OwnerSettings } from './owner-settings.js';
import type { VoiceService } from './voice-service.js';

export interface VoicePartContext {
  config: VoiceConfig;
  /** The owner settings the default manager is built from (config, then env, then Keel's defaults). */
  settings: OwnerSettings;
  service: VoiceService;
  /** The runs plugin's node-type registry, when that plugin is loaded. */
  nodeTypes: NodeTypeRegistry | undefined;
  /** The artifacts plugin's service, when that plugin is loaded (the node types keep their audio as artifacts and read them). */
  artifacts: ArtifactsService | undefined;
  log: Logger;
  paths: Paths;
  clock: Clock;
  auth: AuthService;
  workers: WorkerPools;
  /** Resolved prefixes by mount name: `default` (the web example, `/voice`) and `openai` (`/v1`). */
  mounts: Record<string, string>;
}

export interface VoicePartInstance {
  routes?: AnyRoute[];
  pages?: PluginPage[];
  health?: Record<string, () => unknown>;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
}

export type VoicePart = (ctx: VoicePartContext) => VoicePartInstance;
