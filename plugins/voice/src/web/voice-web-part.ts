/** The voice plugin's part that serves the web example (reference B.15) and its page on the default mount (`/voice`). */
import type { OwnerSettings } from '../owner-settings.js';
import type { VoicePart } from '../plugin-parts.js';
import { voiceWeb } from './index.js';
import type { WebDefaults } from './web-backend.js';

export function webDefaultsOf(settings: OwnerSettings): WebDefaults {
  return {
    language: settings.language,
    allowDownloads: settings.allowDownloads,
    ttsEngine: settings.ttsEngine,
    sttEngine: settings.sttEngine,
    ttsModel: settings.ttsModel,
    sttModel: settings.sttModel,
    whisperModel: settings.whisperModel,
    cloningEngine: settings.cloningEngine,
    remoteBaseUrl: settings.remoteBaseUrl,
    remoteApiKeyConfigured: Boolean(settings.remoteApiKey),
    remoteTimeoutS: settings.remoteTimeoutS,
    codebook: { predictor: settings.codebookPredictor, sampler: settings.codebookSampler },
  };
}

export const voiceWebPart: VoicePart = (ctx) =>
  voiceWeb({
    backend: ctx.service,
    defaults: webDefaultsOf(ctx.settings),
    web: ctx.config.web,
    limits: ctx.config.limits,
    prefix: ctx.mounts.default ?? '/voice',
  });
