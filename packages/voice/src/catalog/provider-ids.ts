/**
 * Provider ids, their aliases and the order listings use (reference B.7, B.8). Keel names the hosted
 * service `hosted` and any OpenAI-shaped server `compatible`; the reference's names are accepted as
 * aliases so selectors written for it keep working.
 */

export type ProviderKind = 'tts' | 'stt' | 'cloning';

export const PROVIDER_KINDS: readonly ProviderKind[] = ['tts', 'stt', 'cloning'];

/** Listings put these first, in this order, then everything else by name (reference B.7 "Ordering"). */
const ORDER: Record<ProviderKind, readonly string[]> = {
  tts: ['hosted', 'compatible', 'espeak'],
  stt: ['hosted', 'compatible', 'pocketsphinx', 'faster-whisper', 'transformers-asr'],
  cloning: ['hosted', 'compatible'],
};

const ALIASES: Record<ProviderKind, Record<string, string>> = {
  tts: { openai: 'hosted', auto: 'hosted', 'openai-compatible': 'compatible', remote: 'compatible', proxy: 'compatible', 'espeak-ng': 'espeak' },
  stt: {
    openai: 'hosted',
    auto: 'hosted',
    'openai-compatible': 'compatible',
    remote: 'compatible',
    proxy: 'compatible',
    whisper: 'faster-whisper',
    local: 'faster-whisper',
    transformers: 'transformers-asr',
    hf: 'transformers-asr',
    sphinx: 'pocketsphinx',
  },
  cloning: { openai: 'hosted', 'openai-compatible': 'compatible', remote: 'compatible', proxy: 'compatible', 'f5-tts': 'f5_tts', openf5: 'f5_tts' },
};

/** Ids are short lower-case tokens; anything else is not a provider (and is never echoed unbounded). */
const PROVIDER_ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/** The canonical id of `provider` for `kind`, or null when it cannot be a provider id at all. */
export function normalizeProvider(kind: ProviderKind, provider: string | null | undefined): string | null {
  if (typeof provider !== 'string') return null;
  const id = provider.trim().toLowerCase();
  if (!PROVIDER_ID.test(id)) return null;
  return ALIASES[kind][id] ?? id;
}

/** Sorts provider ids by the kind's listing order, then by name, without duplicates. */
export function sortProviders(kind: ProviderKind, ids: Iterable<string>): string[] {
  const order = ORDER[kind];
  const rank = (id: string) => {
    const at = order.indexOf(id);
    return at < 0 ? order.length : at;
  };
  return [...new Set(ids)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Splits a `provider:model` selector (reference B.7 "Provider selectors"): the part before the first
 * `:` is the provider only when it is one of `known`; otherwise the whole string is the provider. The
 * model `default` means none.
 */
export function splitSelector(kind: ProviderKind, provider: string | null | undefined, model: string | null | undefined, known: readonly string[]): { provider: string | null; model: string | null } {
  let p = typeof provider === 'string' && provider.trim() !== '' ? provider.trim() : null;
  let m = typeof model === 'string' && model.trim() !== '' ? model.trim() : null;
  if (p !== null && p.includes(':')) {
    const at = p.indexOf(':');
    const head = normalizeProvider(kind, p.slice(0, at));
    if (head !== null && known.includes(head)) {
      m ??= p.slice(at + 1) || null;
      p = head;
    }
  }
  // `model=provider:model` with no provider (as OpenAI clients send `model` alone) selects that provider too.
  if (p === null && m !== null && m.includes(':')) {
    const at = m.indexOf(':');
    const head = normalizeProvider(kind, m.slice(0, at));
    if (head !== null && known.includes(head)) {
      p = head;
      m = m.slice(at + 1) || null;
    }
  }
  if (m !== null && m.toLowerCase() === 'default') m = null;
  return { provider: p === null ? null : (normalizeProvider(kind, p) ?? p), model: m };
}
