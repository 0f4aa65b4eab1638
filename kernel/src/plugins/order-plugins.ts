/**
 * Orders plugins so every provider is set up before the plugins that depend on it. A token no
 * one provides (unless the dependency is `optional`), two providers of one token, and a dependency cycle are boot errors naming the plugins.
 */
import { isOptional, providedValues, type AnyPlugin } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';

export function orderPlugins<T extends { plugin: AnyPlugin }>(entries: T[], hostProvided: Set<symbol>): T[] {
  const providerOf = new Map<symbol, T>();
  const problems: string[] = [];
  for (const entry of entries) {
    // A plugin may provide several tokens (`provides` as a record); each is checked on its own.
    for (const { token } of providedValues(entry.plugin.provides, undefined)) {
      const other = providerOf.get(token.key);
      if (other === entry) problems.push(`plugin '${entry.plugin.id}' lists token '${token.name}' twice in provides.`);
      else if (other) problems.push(`token '${token.name}' is provided by both '${other.plugin.id}' and '${entry.plugin.id}'.`);
      else providerOf.set(token.key, entry);
    }
  }
  const edges = new Map<T, T[]>();
  for (const entry of entries) {
    const needs: T[] = [];
    for (const [name, token] of Object.entries(entry.plugin.deps ?? {})) {
      if (hostProvided.has(token.key)) continue;
      const provider = providerOf.get(token.key);
      if (!provider) {
        // An optional dependency no loaded plugin provides resolves to undefined.
        if (isOptional(token)) continue;
        problems.push(`plugin '${entry.plugin.id}' needs token '${token.name}' (deps.${name}), which no loaded plugin provides.`);
      } else if (provider !== entry) {
        needs.push(provider);
      }
    }
    edges.set(entry, needs);
  }
  if (problems.length) throw new BootError(problems);

  const ordered: T[] = [];
  const state = new Map<T, 'visiting' | 'done'>();
  const visit = (entry: T, trail: T[]): void => {
    const s = state.get(entry);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(entry)), entry].map((e) => e.plugin.id).join(' → ');
      throw new BootError(`plugin dependency cycle: ${cycle}.`);
    }
    state.set(entry, 'visiting');
    for (const dep of edges.get(entry) ?? []) visit(dep, [...trail, entry]);
    state.set(entry, 'done');
    ordered.push(entry);
  };
  for (const entry of entries) visit(entry, []);
  return ordered;
}
