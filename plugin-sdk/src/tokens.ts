/**
 * Typed dependency tokens. A token names a value that some provider (the kernel or another
 * plugin) registers and that plugins declare in `deps`. The kernel keeps the values by token in
 * plain maps (a root map, one scope per plugin); plugin authors only ever see this typed wrapper.
 */
export interface Token<T> {
  /** Unique injection key (a symbol, so two tokens never collide by name). */
  readonly key: symbol;
  /** Human-readable name used in boot errors ("no plugin provides token 'runs.service'"). */
  readonly name: string;
  /** Phantom field carrying the value type; never set at run time. */
  readonly __type?: T;
}

/** Makes a new token. Create each token once, in the providing package's public `index.ts`. */
export function token<T>(name: string): Token<T> {
  return Object.freeze({ key: Symbol.for(`keel.token:${name}`), name });
}

/**
 * A dependency the plugin can run without: `deps: { inference: optional(inferenceToken) }` resolves
 * to the provider's value when a loaded plugin provides the token (the provider is then set up
 * first, as for any dependency), and to `undefined` when none does, where a plain token is a boot
 * error.
 */
export interface OptionalToken<T> extends Token<T | undefined> {
  readonly optional: true;
}

/** Marks a dependency as optional (see `OptionalToken`); the same key, so it resolves to the same provider. */
export function optional<T>(token: Token<T>): OptionalToken<T> {
  return Object.freeze({ key: token.key, name: token.name, optional: true as const });
}

export function isOptional(token: Token<unknown>): boolean {
  return (token as { optional?: unknown }).optional === true;
}

/** A map of dependency names to tokens, as a plugin declares it. */
export type DepsMap = Record<string, Token<unknown>>;

/** The values the tokens of a `DepsMap` resolve to (`T | undefined` for an `optional(...)` one). */
export type ResolvedDeps<D extends DepsMap> = { [K in keyof D]: D[K] extends OptionalToken<infer T> ? T | undefined : D[K] extends Token<infer T> ? T : never };

/** Several tokens one plugin provides, by name; its `exports` then has one value under each name. */
export type ProvidedTokens<E> = { [K in keyof E]: Token<E[K]> };

/** What a plugin's `provides` may be: one token (its value is the whole `exports`) or a record of tokens. */
export type Provides<E> = Token<E> | ProvidedTokens<E>;

export function isToken(value: unknown): value is Token<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { key?: unknown }).key === 'symbol';
}

/**
 * The tokens a `provides` declares, each with the value it resolves to from `exports`: the whole
 * `exports` for a single token, `exports[name]` for each entry of a record.
 */
export function providedValues(provides: Provides<unknown> | undefined, exports: unknown): Array<{ token: Token<unknown>; value: unknown; name: string | null }> {
  if (!provides) return [];
  if (isToken(provides)) return [{ token: provides, value: exports, name: null }];
  const record = (exports ?? {}) as Record<string, unknown>;
  return Object.entries(provides as Record<string, Token<unknown>>).map(([name, token]) => ({ token, value: record[name], name }));
}
