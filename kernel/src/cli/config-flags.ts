/**
 * `--config F`, `--data-dir D` and `--plugins a,b` read out of a plugin command's words: the host
 * needs the config before it knows which plugin owns the command, and the command gets the words left.
 */
import { parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

export interface SplitArgs {
  flags: { config?: string; 'data-dir'?: string; plugins?: string };
  /** The words without those flags, in order. */
  rest: string[];
}

export function takeConfigFlags(args: string[]): SplitArgs {
  // Non-strict: the command's own flags are not known here and stay in `rest` untouched.
  const { tokens } = parseArgs({ args, strict: false, allowPositionals: true, tokens: true, options: { config: { type: 'string' }, 'data-dir': { type: 'string' }, plugins: { type: 'string' } } });
  const flags: SplitArgs['flags'] = {};
  const taken = new Set<number>();
  for (const t of tokens) {
    if (t.kind === 'option-terminator') break;
    if (t.kind !== 'option' || (t.name !== 'config' && t.name !== 'data-dir' && t.name !== 'plugins')) continue;
    if (typeof t.value !== 'string' || t.value === '') throw new UsageError(`--${t.name} needs a value (--${t.name} ${{ config: 'F', 'data-dir': 'D', plugins: 'a,b' }[t.name]}).`);
    flags[t.name] = t.value;
    taken.add(t.index);
    if (!t.inlineValue) taken.add(t.index + 1);
  }
  return { flags, rest: args.filter((_, i) => !taken.has(i)) };
}
