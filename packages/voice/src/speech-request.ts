/**
 * Turning one speech call into a `speech_request_v1` (reference B.2): text bounds and markdown
 * stripping, speed range, the engine (the active one, or a clone's), language, and the controls the
 * engine honours — unsupported instructions, speed, profiles and presets are refused with a sentence,
 * never dropped silently (SPEC-WINS).
 */
import { VoiceError, type QualityPreset, type SpeechRequest, type TtsEngine, type VoiceProfile } from './contracts.js';
import { normaliseLanguage } from './languages.js';
import type { CapabilityLookup, ClonedVoiceStoreHook, CloneRecordView } from './manager-hooks.js';
import { normaliseQualityPreset } from './quality-preset.js';
import { sanitizeSyntax } from './sanitize-syntax.js';
import { echoInput } from './echo-input.js';

export type SpeechControl = 'speed' | 'instructions' | 'profile' | 'quality_preset';

/** Per-call speech options; each overrides the manager's setting for this call only. */
export interface SpeakOptions {
  /** A cloned voice id (spoken by its clone engine). */
  voice?: string;
  /**
   * The store `voice` is looked up in, for this call; default the manager's `clonedVoices` hook. A
   * host serving several accounts passes the caller's own store so no account speaks another's clone.
   */
  clonedVoices?: ClonedVoiceStoreHook;
  instructions?: string;
  /** Strip markdown before speaking (default true). */
  sanitizeSyntax?: boolean;
  speed?: number;
  language?: string;
  /** A profile of the active engine (`profile_id` or `engine:profile_id`). */
  profile?: string;
  model?: string;
  quality?: string;
  signal?: AbortSignal;
}

/** What the manager lends the preparation: its settings and how to reach engines. */
export interface SpeechContext {
  maxTextChars: number;
  speed: number;
  language: string;
  ttsModel: string | undefined;
  ttsId: string;
  activeProfile: string;
  quality: QualityPreset | null;
  clonedQuality: QualityPreset | null;
  capabilities: CapabilityLookup | undefined;
  baseEngine(): TtsEngine;
  cloneSpeaker(voiceId: string, store?: ClonedVoiceStoreHook): Promise<{ record: CloneRecordView; engine: TtsEngine; profile?: string }>;
  ensureAvailable(engine: TtsEngine): Promise<void>;
  profiles(): Promise<VoiceProfile[]>;
}

export interface PreparedSpeech {
  engine: TtsEngine;
  request: SpeechRequest;
  text: string;
  clone?: CloneRecordView;
  profileLabel?: string;
}

export async function prepareSpeech(ctx: SpeechContext, text: string, options: SpeakOptions, surface: 'bytes' | 'playback'): Promise<PreparedSpeech> {
  if (typeof text !== 'string') throw new VoiceError('Missing input text.', 400, 'missing_input');
  if (text.length > ctx.maxTextChars) throw new VoiceError(`The text is longer than ${ctx.maxTextChars} characters.`, 400, 'text_too_long');
  const spoken = (options.sanitizeSyntax === false ? text : sanitizeSyntax(text)).trim();
  if (spoken === '') throw new VoiceError('Missing input text.', 400, 'missing_input');

  const speed = options.speed ?? ctx.speed;
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0.5 || speed > 2) {
    throw new VoiceError('Speed must be between 0.5 and 2.0.', 400, 'invalid_speed');
  }

  let engine: TtsEngine;
  let clone: CloneRecordView | undefined;
  let profile: string | undefined;
  if (options.voice) {
    const speaker = await ctx.cloneSpeaker(options.voice, options.clonedVoices);
    ({ engine, record: clone, profile } = speaker);
  } else {
    engine = ctx.baseEngine();
  }
  await ctx.ensureAvailable(engine);

  const language = options.language !== undefined ? normaliseLanguage(options.language) : ctx.language;
  let languages = engine.languages();
  // A local engine learns its languages when it first reads its voice list (espeak: at first use);
  // read it now, so the first request is checked like every later one (a local read, no network).
  if (languages.length === 0 && engine.kind === 'local' && options.language !== undefined) {
    await engine.profiles();
    languages = engine.languages();
  }
  if (language === '' || (languages.length > 0 && !languages.includes(language))) {
    throw new VoiceError(`Unsupported or unavailable language: ${echoInput(options.language ?? language)}`, 400, 'unsupported_language');
  }

  const model = options.model ?? (clone ? undefined : ctx.ttsModel);
  const provider = clone ? engine.id : ctx.ttsId;
  const supports = (feature: SpeechControl): boolean => supportsControl(ctx.capabilities, engine, provider, model, feature, surface);
  if (options.instructions !== undefined && options.instructions !== '' && !supports('instructions')) {
    throw new VoiceError(`Instructions are not supported by the '${engine.id}' TTS engine.`, 400, 'unsupported_instructions');
  }
  if (speed !== 1 && !supports('speed')) throw new VoiceError(`Speed is not supported by the '${engine.id}' TTS engine.`, 400, 'unsupported_speed');

  // The model before the profile: which profiles exist depends on it, so an OpenAI client's stock
  // `tts-1` + `alloy` against a local engine is told to change the model first.
  if (options.model !== undefined && options.model !== '' && engine.kind === 'local' && options.model.toLowerCase() !== engine.id) {
    const models = await engine.models();
    if (models.length > 0 && !models.includes(options.model)) {
      const known = models.length === 1 ? `its only model is '${models[0]}'` : `its models are ${models.map((m) => `'${m}'`).join(', ')}`;
      throw new VoiceError(`${engine.id} has no model '${echoInput(options.model)}'; ${known}.`, 400, 'unknown_model');
    }
  }

  let profileLabel: string | undefined;
  if (!clone) {
    const requested = options.profile !== undefined ? stripEngine(options.profile, engine.id) : undefined;
    if (requested !== undefined && engine.kind === 'local') {
      const found = (await ctx.profiles()).find((p) => p.profile_id === requested);
      if (!found) throw new VoiceError(`Profile is not supported by the active TTS provider: ${echoInput(options.profile)}`, 400, 'unknown_profile');
      profileLabel = found.label;
    }
    profile = requested ?? (ctx.activeProfile || undefined);
    if (profile && !supports('profile')) {
      if (requested !== undefined) throw new VoiceError(`Profiles are not supported by the '${engine.id}' TTS engine.`, 400, 'unsupported_profile');
      profile = undefined;
    }
  }

  let quality: QualityPreset | undefined;
  if (options.quality !== undefined) {
    quality = normaliseQualityPreset(options.quality);
    if (!supports('quality_preset')) throw new VoiceError(`Quality presets are not supported by the '${engine.id}' TTS engine.`, 400, 'unsupported_quality_preset');
  } else quality = (clone ? ctx.clonedQuality : ctx.quality) ?? undefined;

  const request: SpeechRequest = { text: spoken, language, speed, ...(profile ? { profile } : {}), ...(model ? { model } : {}), ...(quality ? { quality } : {}), signal: options.signal };
  if (options.instructions) request.instructions = options.instructions;
  return { engine, request, text: spoken, clone, profileLabel };
}

/**
 * Whether a control is honoured: the capability catalog when one is plugged in (anything but
 * `unsupported`), else the engine's own `controls`, else the default rule (instructions: remote only;
 * quality presets: no; speed and profile: yes).
 */
export function supportsControl(capabilities: CapabilityLookup | undefined, engine: TtsEngine, provider: string, model: string | undefined, feature: SpeechControl, surface: string): boolean {
  const fromCatalog = capabilities?.getCapabilitySupport('tts', feature, provider, model ?? null, surface);
  if (fromCatalog) return fromCatalog.support !== 'unsupported';
  const declared = engine.controls?.[feature === 'quality_preset' ? 'qualityPreset' : feature];
  if (declared !== undefined) return declared;
  if (feature === 'instructions') return engine.kind === 'remote';
  return feature !== 'quality_preset';
}

/** `engine:profile` → `profile` when the prefix is the engine's id. */
export function stripEngine(id: string, engineId: string): string {
  const prefix = `${engineId}:`;
  return id.toLowerCase().startsWith(prefix) ? id.slice(prefix.length) : id;
}
