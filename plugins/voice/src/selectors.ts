/**
 * Provider selectors (reference B.7): a request names a provider and a model split, or combined as
 * `provider:model`. The part before the first `:` is the provider only when it is a known provider
 * of that kind; otherwise a known provider alone is the provider, and anything else is a model of
 * the configured provider. The model `default` means none.
 */

export interface Selection {
  provider?: string;
  model?: string;
}

/** `canonical(id)` answers the canonical provider id of the kind, or null for an unknown one. */
export function parseSelector(model: string | undefined, provider: string | undefined, canonical: (id: string) => string | null): Selection {
  const out: Selection = {};
  const explicit = provider?.trim() ? canonical(provider.trim().toLowerCase()) ?? provider.trim().toLowerCase() : undefined;
  if (explicit) out.provider = explicit;
  let rest = model?.trim() || undefined;
  if (rest && !explicit) {
    const colon = rest.indexOf(':');
    const head = colon > 0 ? canonical(rest.slice(0, colon).toLowerCase()) : null;
    if (head) {
      out.provider = head;
      rest = rest.slice(colon + 1).trim() || undefined;
    } else {
      const whole = canonical(rest.toLowerCase());
      if (whole) {
        out.provider = whole;
        rest = undefined;
      }
    }
  }
  if (rest && rest.toLowerCase() !== 'default') out.model = rest;
  return out;
}
