/**
 * Typed dependency tokens. A token names a value that some provider (the kernel or another
 * plugin) registers and that plugins declare in `deps`. The kernel maps tokens onto a tsyringe
 * container; plugin authors only ever see this typed wrapper.
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

/** A map of dependency names to tokens, as a plugin declares it. */
export type DepsMap = Record<string, Token<unknown>>;

/** The values the tokens of a `DepsMap` resolve to. */
export type ResolvedDeps<D extends DepsMap> = { [K in keyof D]: D[K] extends Token<infer T> ? T : never };
