/**
 * espeak's voice list as Keel profiles, and the choice of a voice for a request. Every voice name
 * that reaches espeak's `-v` comes from espeak's own list, so a request cannot smuggle a flag there.
 */
import { VoiceError, type VoiceProfile } from '@keel/voice';
import type { EspeakVoiceRow, VoicesResult } from './protocol.js';

export const ENGINE_ID = 'espeak';

export class VoiceCatalog {
  private readonly byName = new Map<string, EspeakVoiceRow>();
  /** Lower-case name → the file's own name (variant files are case-sensitive: `Alex`, `f3`). */
  private readonly variantNames: Map<string, string>;

  constructor(readonly listing: VoicesResult, readonly defaultVoice: string) {
    for (const v of listing.voices) this.byName.set(v.name.toLowerCase(), v);
    this.variantNames = new Map(listing.variants.map((v) => [v.toLowerCase(), v]));
  }

  /** Every language a voice serves (its own code and its "other languages"), sorted. */
  languages(): string[] {
    const set = new Set<string>();
    for (const v of this.listing.voices) {
      set.add(v.name.toLowerCase());
      for (const o of v.others) set.add(o.language.toLowerCase());
    }
    return [...set].sort();
  }

  /** Base voices, then the variants of the default voice (`en-us+f3`): each variant works with any voice. */
  profiles(): VoiceProfile[] {
    const base = this.listing.voices.map((v) => profileOf(v));
    const def = this.byName.get(this.defaultVoice.toLowerCase());
    const variants = def ? this.listing.variants.map((variant) => profileOf(def, variant)) : [];
    return [...base, ...variants];
  }

  /**
   * The voice for a request: the named profile (`voice` or `voice+variant`, exactly as listed), else the
   * default voice when it serves the language, else espeak's preferred voice for the language.
   */
  resolve(language: string, profile?: string): string {
    if (profile !== undefined && profile !== '') {
      const id = profile.startsWith(`${ENGINE_ID}:`) ? profile.slice(ENGINE_ID.length + 1) : profile;
      const [name = '', variant, extra] = id.split('+');
      const voice = this.byName.get(name.toLowerCase());
      const variantName = variant === undefined ? undefined : this.variantNames.get(variant.toLowerCase());
      if (!voice || extra !== undefined || (variant !== undefined && !variantName)) {
        throw new VoiceError(`Unknown espeak voice '${clip(profile)}': use a voice from the profile list, optionally with '+variant' (e.g. 'en-us+f3').`, 404, 'unknown_voice');
      }
      return variantName === undefined ? voice.name : `${voice.name}+${variantName}`;
    }
    const lang = language.toLowerCase();
    const def = this.byName.get(this.defaultVoice.toLowerCase());
    if (def && serves(def, lang)) return def.name;
    const exact = this.byName.get(lang);
    if (exact) return exact.name;
    let best: { voice: EspeakVoiceRow; priority: number } | undefined;
    for (const v of this.listing.voices) {
      const o = v.others.find((x) => x.language.toLowerCase() === lang);
      if (o && (!best || o.priority < best.priority)) best = { voice: v, priority: o.priority };
    }
    if (best) return best.voice.name;
    throw new VoiceError(`espeak has no voice for language '${clip(language)}'; the supported languages are listed by the engine.`, 400, 'unsupported_language');
  }
}

function serves(v: EspeakVoiceRow, lang: string): boolean {
  return v.name.toLowerCase() === lang || v.others.some((o) => o.language.toLowerCase() === lang);
}

function profileOf(v: EspeakVoiceRow, variant?: string): VoiceProfile {
  const id = variant ? `${v.name}+${variant}` : v.name;
  return {
    engine_id: ENGINE_ID,
    profile_id: id,
    label: variant ? `${v.label} (${variant})` : v.label,
    params: { voice: v.name, ...(variant ? { variant } : {}) },
    tags: { language: v.name, languages: [v.name, ...v.others.map((o) => o.language)], ...(v.gender && !variant ? { gender: v.gender } : {}) },
    provenance: { source: 'espeak-ng --voices', file: v.file },
  };
}

function clip(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}…` : s;
}
