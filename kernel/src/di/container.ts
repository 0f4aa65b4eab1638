/**
 * Dependency injection on tsyringe. The kernel's root container holds host-wide values and
 * plugin exports; each plugin resolves its deps from a child container in which the core tokens
 * are scoped to that plugin. Plugin authors only see typed tokens, never tsyringe.
 */
import 'reflect-metadata';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import type { DepsMap, ResolvedDeps, Token } from '@keel/plugin-sdk';

export class KernelContainer {
  private readonly root: DependencyContainer = globalContainer.createChildContainer();
  private readonly overrides = new Map<symbol, unknown>();

  provide<T>(token: Token<T>, value: T): void {
    this.root.register(token.key, { useValue: value });
  }

  override(token: Token<unknown>, value: unknown): void {
    this.overrides.set(token.key, value);
  }

  isOverridden(key: symbol): boolean {
    return this.overrides.has(key);
  }

  /** A container for one plugin: its scoped core values, then the test/embedding overrides on top. */
  forPlugin(scoped: Array<[Token<unknown>, unknown]>): PluginScope {
    const child = this.root.createChildContainer();
    for (const [token, value] of scoped) child.register(token.key, { useValue: value });
    for (const [key, value] of this.overrides) child.register(key, { useValue: value });
    return new PluginScope(child);
  }

  resolve<T>(token: Token<T>): T {
    if (this.overrides.has(token.key)) return this.overrides.get(token.key) as T;
    return this.root.resolve<T>(token.key);
  }

  has(key: symbol): boolean {
    return this.overrides.has(key) || this.root.isRegistered(key, true);
  }
}

export class PluginScope {
  constructor(private readonly container: DependencyContainer) {}

  resolveDeps<D extends DepsMap>(deps: D | undefined): ResolvedDeps<D> {
    const out: Record<string, unknown> = {};
    for (const [name, token] of Object.entries(deps ?? {})) out[name] = this.container.resolve(token.key);
    return out as ResolvedDeps<D>;
  }
}
