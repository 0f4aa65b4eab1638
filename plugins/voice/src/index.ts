/**
 * `@keel/plugin-voice`: speech for Keel (issue 17; seed 002 §1B, §4B; reference voice-vision.md
 * part B). The OpenAI audio routes on the gateway's `/v1` (`openai/`), the voice service other
 * plugins and the node types use (`voice.service`), managers cached per configuration, the limits
 * (`admission.ts`, `audio-upload.ts`), and the parts written in their own files (`VOICE_PARTS`:
 * the flow node types, the web example and its page).
 */
import path from 'node:path';
import { core, definePlugin, openaiErrorFormat, optional, StartRefusedError, token, type AnyRoute, type PluginPage } from '@keel/plugin-sdk';
import { nodeTypesToken } from '@keel/plugin-gateway-runs';
import { artifactsToken } from '@keel/plugin-artifacts';
import { voiceNodesPart } from './nodes/voice-nodes-part.js';
import { voiceWebPart } from './web/voice-web-part.js';
import { webErrorFormat } from './web/web-errors.js';
import { EspeakEngine } from '@keel/engine-espeak';
import { PocketsphinxEngine } from '@keel/engine-pocketsphinx';
import { VoiceAdmission } from './admission.js';
import { voiceConfigSchema } from './config.js';
import { ManagerCache } from './manager-cache.js';
import type { VoiceManagerPort } from './manager-port.js';
import { apiSwitch } from './openai/api-switch.js';
import { openaiAudioSlotToken } from './openai/audio-slot-token.js';
import { catalogRoutes } from './openai/catalog-routes.js';
import { cloneRoute } from './openai/clone-route.js';
import { speechRoute } from './openai/speech-route.js';
import { transcriptionRoute } from './openai/transcription-route.js';
import { publicSettings, resolveOwnerSettings } from './owner-settings.js';
import type { VoicePart } from './plugin-parts.js';
import { isVoiceError } from './voice-errors.js';
import { VoiceManagers } from './voice-managers.js';
import { VoiceRuntime } from './voice-runtime.js';
import type { VoiceService } from './voice-service.js';

export type { VoiceConfig, VoiceLimits } from './config.js';
export type { OwnerSettings } from './owner-settings.js';
export { resolveOwnerSettings, readBoolean, KEEL_VOICE_DEFAULTS } from './owner-settings.js';
export type * from './voice-service.js';
export type { TtsStreamEvent, TtsStreamAudioEvent, TtsStreamEndEvent } from './tts-stream.js';
export type { ResidentEntry, ResidentRequest } from './resident-models.js';
export type { VoicePart, VoicePartContext, VoicePartInstance } from './plugin-parts.js';

/** The voice service: speech, transcription, discovery and cloning for an account, within the plugin's limits. */
export const voiceServiceToken = token<VoiceService>('voice.service');

/**
 * The parts of this plugin that live in their own files, each adding routes, pages, health fields,
 * start and stop (see `plugin-parts.ts`). Add yours here.
 */
const VOICE_PARTS: VoicePart[] = [voiceNodesPart, voiceWebPart];

export const voicePlugin = definePlugin({
  id: 'voice',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Text to speech and speech to text (local espeak and pocketsphinx, or remote OpenAI-shaped endpoints): /v1/audio, the voice catalog, cloned voices',
  configSchema: voiceConfigSchema,
  // The web example's routes and page; the OpenAI routes live on the `openai` mount (`/v1`).
  defaultPrefix: '/voice',
  // `{detail: "<sentence>"}` always (reference B.15), see `web/web-errors.ts`.
  errorFormat: webErrorFormat,
  guardUnmatched: true,
  mounts: { openai: { prefix: '/v1', errorFormat: openaiErrorFormat } },
  deps: {
    log: core.logger, paths: core.paths, clock: core.clock, auth: core.auth, workers: core.workers,
    nodeTypes: optional(nodeTypesToken),
    artifacts: optional(artifactsToken),
    audioSlot: optional(openaiAudioSlotToken),
  },
  provides: voiceServiceToken,
  async setup({ config, deps, mounts }) {
    // The kernel's environment: the VOICE_* and HOSTED_* fallbacks of the owner keys (reference B.13, B.16).
    const env = process.env;
    const settings = resolveOwnerSettings(config, env);
    const limits = () => config.limits;
    // The local engines, made once and shared by every manager; they start threads and processes only when used.
    const espeak = new EspeakEngine({ maxThreads: config.engines.espeak.maxThreads, maxTextChars: config.limits.maxInputChars });
    const { binary, modelDir, maxConcurrent } = config.engines.pocketsphinx;
    const pocketsphinx = new PocketsphinxEngine({ ...(binary ? { binary } : {}), ...(modelDir ? { modelDir } : {}), maxConcurrent, maxAudioBytes: config.limits.maxUploadBytes });
    const builder = new VoiceManagers({
      engines: { tts: [espeak], stt: [pocketsphinx] },
      cloneDir: (account) => path.join(deps.paths.forAccount(account), 'cloned_voices'),
      limits,
      env,
    });
    const managers = new ManagerCache<VoiceManagerPort>((s) => builder.build(s), () => config.limits.maxCachedManagers, (err) => deps.log.warn('closing a voice manager failed', { err }));
    // The configured manager is built now: an unknown engine id or a missing key stops the boot with the library's sentence.
    try {
      await managers.use(settings, async () => undefined);
    } catch (err) {
      if (isVoiceError(err)) throw new StartRefusedError(`The voice plugin cannot start: ${err.message}${err.install ? ` Install with: ${err.install}` : ''}`, { cause: err });
      throw err;
    }
    const admission = new VoiceAdmission(limits);
    const service = new VoiceRuntime(settings, managers, admission, limits, builder.canonical, builder.capabilities);
    // Tell the inference plugin (owner of `/v1`) that the audio routes are served here.
    deps.audioSlot?.claim('voice');
    const api = apiSwitch(deps.audioSlot);

    const parts = VOICE_PARTS.map((part) =>
      part({ config, settings, service, nodeTypes: deps.nodeTypes, artifacts: deps.artifacts, log: deps.log, paths: deps.paths, clock: deps.clock, auth: deps.auth, workers: deps.workers, mounts }),
    );
    const routes: AnyRoute[] = [
      speechRoute(service, limits, api) as AnyRoute,
      transcriptionRoute(service, limits, api) as AnyRoute,
      ...(catalogRoutes(service, api) as AnyRoute[]),
      cloneRoute(service, limits, api) as AnyRoute,
      ...parts.flatMap((p) => p.routes ?? []),
    ];
    const pages: PluginPage[] = parts.flatMap((p) => p.pages ?? []);
    return {
      exports: service,
      routes,
      pages,
      health: Object.assign({}, ...parts.map((p) => p.health ?? {})) as Record<string, () => unknown>,
      async start() {
        deps.log.info('voice ready', { settings: publicSettings(settings) });
        for (const p of parts) await p.start?.();
      },
      async stop() {
        for (const p of [...parts].reverse()) await p.stop?.();
        await managers.closeAll();
        await Promise.allSettled([espeak.close(), pocketsphinx.close()]);
      },
    };
  },
});

export default voicePlugin;
