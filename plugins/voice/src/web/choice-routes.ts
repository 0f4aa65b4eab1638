/**
 * The web example's state routes (reference B.15), each for the calling account only:
 * `GET /api/status`, `GET /api/voices`, `POST /api/tts/provider` (+ `/api/tts/engine`),
 * `POST /api/voices/select`, `POST /api/qwen3-tts/codebook`, `GET /api/llm` (+ `/api/llm/models`).
 */
import { badRequest, defineSchema, route, type AnyRoute } from '@keel/plugin-sdk';
import type { AccountVoice, ChosenVoice } from './account-voices.js';
import { listLlmModels } from './llm-models.js';
import { findClone, findProfile, rolesOf, voiceDirectory } from './voice-directory.js';
import { answering } from './web-errors.js';
import { activeProvider, currentOf, flagOf, type VoiceWebContext } from './web-context.js';
import { codebookOf, providerNameOf, voiceKindOf, voiceRoleOf } from './web-values.js';
import { WEB_ROUTES } from './web-route-list.js';

const shortText = { type: 'string', maxLength: 256 } as const;
const flag = { type: ['boolean', 'string', 'integer'] } as const;

const providerBody = defineSchema({ type: 'object', properties: { provider: shortText, engine: shortText } });
const selectBody = defineSchema({ type: 'object', properties: { kind: shortText, voice: shortText, profile: shortText, role: shortText, preload: flag } });
const codebookBody = defineSchema({ type: 'object', properties: { predictor: shortText, sampler: shortText } });
const llmQuery = defineSchema({ type: 'object', properties: { provider: { type: 'string', maxLength: 64 } } });

export function choiceRoutes(ctx: VoiceWebContext): AnyRoute[] {
  const status = route({
    method: 'GET',
    path: '/api/status',
    summary: "The web example's defaults, this account's current choices and the routes (builds no engine)",
    tags: ['voice'],
    handler: async ({ principal }) => {
      const choice = ctx.choices.get(principal.account);
      const providers = await answering(() => ctx.backend.availableProviders(principal.account));
      const d = ctx.defaults;
      return {
        ok: true,
        status: 'ok',
        // The plugin builds its configured manager at setup (a bad engine id refuses the start): here it exists.
        voice_manager_initialized: true,
        allow_downloads: d.allowDownloads,
        defaults: {
          language: d.language,
          tts_engine: d.ttsEngine,
          tts_provider: d.ttsEngine,
          stt_engine: d.sttEngine,
          stt_provider: d.sttEngine,
          tts_model: d.ttsModel,
          stt_model: d.sttModel,
          cloning_engine: d.cloningEngine,
          cloning_provider: d.cloningEngine,
          remote_base_url: d.remoteBaseUrl,
          remote_api_key_configured: d.remoteApiKeyConfigured,
          remote_timeout_s: d.remoteTimeoutS,
          whisper_model: d.whisperModel,
          llm_provider: ctx.web.llm.defaultProvider ?? Object.keys(ctx.web.llm.providers)[0] ?? null,
          llm_model: null,
        },
        current: currentOf(ctx, choice),
        optional_dependencies: dependenciesOf(providers),
        routes: WEB_ROUTES.map((r) => ({ method: r.method, path: `${ctx.prefix}${r.path}`, maps_to: r.mapsTo })),
        qwen3_tts: choice.codebook ?? ctx.defaults.codebook,
      };
    },
  });

  const voices = route({
    method: 'GET',
    path: '/api/voices',
    summary: "The active provider's profiles and this account's cloned voices, with the current choice",
    tags: ['voice'],
    handler: async ({ principal }) => {
      const choice = ctx.choices.get(principal.account);
      const provider = activeProvider(ctx, choice);
      const dir = await answering(() => voiceDirectory(ctx.backend, principal.account, provider));
      const chosen = (kind: ChosenVoice['kind'], id: string) => choice.voice?.kind === kind && choice.voice.id === id;
      return {
        ok: true,
        current: currentOf(ctx, choice),
        languages: dir.languages,
        profiles: dir.profiles.map((p) => ({
          id: p.id, profile_id: p.profile_id, engine: p.provider, engine_id: p.provider, provider: p.provider, provider_id: p.provider,
          label: p.label, description: p.description ?? '', params: p.params, tags: p.tags, active: chosen('profile', p.profile_id),
        })),
        cloned_voices: dir.clones.map((c) => ({
          id: c.id, voice_id: c.id, name: c.name, label: c.label, engine: c.provider, provider: c.provider, provider_id: c.provider,
          active: chosen('clone', c.id), roles: rolesOf(choice, { kind: 'clone', id: c.id }),
        })),
        clones_error: dir.clonesError,
        base_models: dir.models,
      };
    },
  });

  const setProvider = (legacy: boolean) => route({
    method: 'POST',
    path: legacy ? '/api/tts/engine' : '/api/tts/provider',
    summary: legacy ? 'Legacy alias of POST /api/tts/provider ({engine}, default auto)' : "Chooses this account's TTS provider (clears its voice and role choices)",
    tags: ['voice'],
    body: providerBody,
    handler: async ({ body, principal }) => {
      const asked = (legacy ? body.engine ?? body.provider ?? 'auto' : body.provider ?? body.engine ?? '').trim();
      if (!asked) throw badRequest('Missing provider: send {"provider": "<id>"} (or "auto").');
      const providers = await answering(() => ctx.backend.availableProviders(principal.account));
      const known = stringsOf(providers.known_tts_providers ?? providers.tts);
      const name = providerNameOf(asked);
      const resolved = name === 'auto' ? autoProvider(providers) : name;
      if (!known.includes(resolved)) throw badRequest(`Unsupported TTS provider: ${asked}. Allowed: auto, ${known.join(', ')}.`);
      const choice = ctx.choices.update(principal.account, (c) => {
        c.ttsProvider = resolved;
        c.voice = null;
        c.roleVoices = { assistant: null, user: null };
      });
      return { ok: true, tts_engine: resolved, tts_provider: resolved, current: currentOf(ctx, choice) };
    },
  });

  const select = route({
    method: 'POST',
    path: '/api/voices/select',
    summary: "Chooses this account's voice (base, a profile of the active provider or a cloned voice), for a role or as current; preload speaks \"Hello.\" first",
    tags: ['voice'],
    body: selectBody,
    handler: async ({ body, principal, signal }) => {
      const kind = voiceKindOf(body.kind);
      const role = voiceRoleOf(body.role);
      const choice = ctx.choices.get(principal.account);
      const provider = activeProvider(ctx, choice);
      let voice: ChosenVoice | null = null;
      if (kind !== 'base') {
        const wanted = (kind === 'profile' ? body.profile ?? body.voice : body.voice ?? body.profile)?.trim();
        if (!wanted) throw badRequest(kind === 'profile' ? 'Missing profile id.' : 'Missing cloned voice id.');
        const dir = await answering(() => voiceDirectory(ctx.backend, principal.account, provider));
        if (kind === 'clone') {
          const clone = findClone(dir.clones, wanted);
          if (!clone) throw badRequest(`Unknown cloned voice: ${wanted}`);
          voice = { kind, id: clone.id };
        } else {
          const profile = findProfile(dir.profiles, wanted);
          if (!profile) throw badRequest(`Profile is not supported by the active TTS provider: ${wanted}`);
          voice = { kind, id: profile.profile_id };
        }
      }
      // The preload speaks with the new choice before it is kept: a voice that cannot speak is not chosen.
      let preload: Record<string, unknown> | undefined;
      if (flagOf(body.preload, false)) {
        const began = performance.now();
        const spoken = await answering(() => ctx.backend.speak(principal.account, { text: 'Hello.', format: 'wav', provider, ...(voice ? { voice: voice.id } : {}), ...(choice.language ? { language: choice.language } : {}), signal }));
        preload = { ok: true, seconds: Number(((performance.now() - began) / 1000).toFixed(3)), bytes: spoken.bytes.length, metrics: spoken.metrics };
      }
      const kept = ctx.choices.update(principal.account, (c: AccountVoice) => {
        if (role) c.roleVoices[role] = voice;
        else c.voice = voice;
      });
      return { ok: true, current: currentOf(ctx, kept), ...(preload ? { preload } : {}) };
    },
  });

  const codebook = route({
    method: 'POST',
    path: '/api/qwen3-tts/codebook',
    summary: "This account's codebook settings {predictor: auto|reference, sampler: multinomial|exponential}; invalid values answer 400 before anything is applied or loaded",
    description: 'Kept with the account\'s choices and reported by GET /api/status (`qwen3_tts`); no engine served here reads them (none is instruction-capable), so nothing loads or unloads.',
    tags: ['voice'],
    body: codebookBody,
    handler: ({ body, principal }) => {
      const current = ctx.choices.get(principal.account).codebook ?? ctx.defaults.codebook;
      const next = codebookOf(body.predictor, body.sampler, current);
      ctx.choices.update(principal.account, (c) => {
        c.codebook = next;
      });
      return { ok: true, ...next };
    },
  });

  const llm = (path: string) => route({
    method: 'GET',
    path,
    summary: 'The model ids of one configured OpenAI-shaped LLM endpoint (web.llm.providers), by name',
    tags: ['voice'],
    query: llmQuery,
    responses: { 200: {}, 400: {}, 502: {} },
    handler: ({ query, signal }) => listLlmModels(ctx.web.llm, query.provider, signal),
  });

  return [status, voices, setProvider(false), setProvider(true), select, codebook, llm('/api/llm'), llm('/api/llm/models')] as AnyRoute[];
}

const stringsOf = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/** The web example's own `auto` (reference B.3): a local engine that is installed, else hosted. */
function autoProvider(providers: Record<string, unknown>): string {
  const details = (providers.details as { tts?: Record<string, { local?: boolean; installed?: boolean | null }> } | undefined)?.tts ?? {};
  const local = Object.entries(details).find(([, d]) => d.local && d.installed !== false);
  return local ? local[0] : 'hosted';
}

/** `optional_dependencies` of the status: each provider's engine, installed or not (from the provider listing, which builds none). */
function dependenciesOf(providers: Record<string, unknown>): Record<string, { installed: boolean | null; version: string | null }> {
  const details = (providers.details ?? {}) as Record<string, Record<string, { installed?: boolean | null; local?: boolean; version?: string }>>;
  const out: Record<string, { installed: boolean | null; version: string | null }> = {};
  for (const kind of ['tts', 'stt', 'cloning']) {
    for (const [id, d] of Object.entries(details[kind] ?? {})) {
      if (d.local) out[id] = { installed: d.installed ?? null, version: d.version ?? null };
    }
  }
  return out;
}
