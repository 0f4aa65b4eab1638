/**
 * The kernel's values by token: plain maps, no DI framework. Every value is made by the kernel or
 * returned by a plugin's `setup`, in the dependency order `orderPlugins` works out, so a map
 * lookup is all injection needs. The root holds host-wide values and plugin exports; each plugin
 * resolves its deps from a scope in which the core tokens hold its own values (its logger, its
 * storage, ...). Test and embedding overrides win over both.
 */
import { isOptional, type DepsMap, type ResolvedDeps, type Token } from '@keel/plugin-sdk';

export class KernelContainer {
  private readonly root = new Map<symbol, unknown>();
  private readonly overrides = new Map<symbol, unknown>();

  provide<T>(token: Token<T>, value: T): void {
    this.root.set(token.key, value);
  }

  override(token: Token<unknown>, value: unknown): void {
    this.overrides.set(token.key, value);
  }

  isOverridden(key: symbol): boolean {
    return this.overrides.has(key);
  }

  /** A scope for one plugin: its scoped core values, then the test/embedding overrides on top. */
  forPlugin(scoped: Array<[Token<unknown>, unknown]>): PluginScope {
    const own = new Map<symbol, unknown>(scoped.map(([token, value]) => [token.key, value]));
    for (const [key, value] of this.overrides) own.set(key, value);
    return new PluginScope(own, this.root);
  }

  resolve<T>(token: Token<T>): T {
    return lookup(token, this.overrides, this.root) as T;
  }

  has(key: symbol): boolean {
    return this.overrides.has(key) || this.root.has(key);
  }
}

export class PluginScope {
  constructor(
    private readonly own: Map<symbol, unknown>,
    private readonly root: Map<symbol, unknown>,
  ) {}

  resolveDeps<D extends DepsMap>(deps: D | undefined): ResolvedDeps<D> {
    const out: Record<string, unknown> = {};
    for (const [name, token] of Object.entries(deps ?? {})) out[name] = lookup(token, this.own, this.root);
    return out as ResolvedDeps<D>;
  }
}

/** The value of `token` in the first map that has it; boot ordering makes a miss a kernel bug (an optional dependency's miss is `undefined`). */
function lookup(token: Token<unknown>, ...maps: Array<Map<symbol, unknown>>): unknown {
  for (const map of maps) if (map.has(token.key)) return map.get(token.key);
  if (isOptional(token)) return undefined;
  throw new Error(`no value is registered for token '${token.name}'`);
}
