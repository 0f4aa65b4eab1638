/**
 * The web example of reference B.15 under the voice plugin's own prefix, behind the gateway token
 * (the reference had no authentication): its state and speech routes, each for the calling
 * account, and the page to speak and listen.
 */
import type { AnyRoute, PluginPage } from '@keel/plugin-sdk';
import { AccountVoices } from './account-voices.js';
import { choiceRoutes } from './choice-routes.js';
import { PAGE_PATH, pageRoutes } from './page-routes.js';
import { speechRoutes } from './speech-routes.js';
import type { VoiceWebBackend, WebDefaults } from './web-backend.js';
import type { WebConfig } from './web-config.js';
import type { WebLimits } from './web-context.js';

export type { VoiceWebBackend, WebDefaults, WebSpeech } from './web-backend.js';
export { DEFAULT_WEB_CONFIG, webConfigJson, webConfigSchema, type WebConfig } from './web-config.js';
export type { WebLimits } from './web-context.js';

export interface VoiceWebOptions {
  backend: VoiceWebBackend;
  defaults: WebDefaults;
  web: WebConfig;
  limits: WebLimits;
  /** The mount's resolved prefix (`/voice`). */
  prefix: string;
}

export function voiceWeb(options: VoiceWebOptions): { routes: AnyRoute[]; pages: PluginPage[] } {
  if (!options.web.enabled) return { routes: [], pages: [] };
  const ctx = { ...options, choices: new AccountVoices(options.web.maxAccounts) };
  return {
    // The page's routes first: of two routes matching a path, the router takes the one registered first.
    routes: [...pageRoutes(), ...choiceRoutes(ctx), ...speechRoutes(ctx)],
    pages: [{ path: PAGE_PATH, title: 'Voice: speak and listen' }],
  };
}
