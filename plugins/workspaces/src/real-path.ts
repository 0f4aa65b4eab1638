/** Real paths of paths that need not exist yet, and whole-component containment. */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Whether `p` is `dir` or lies under it, on whole path components. */
export function inside(p: string, dir: string): boolean {
  if (p === dir) return true;
  const rel = path.relative(dir, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/** Links followed through missing parts (more than the kernel's own 40: what we stop at, it cannot open). */
const MAX_LINK_HOPS = 64;

/**
 * The real path of `p`, which need not exist: the deepest existing ancestor is resolved (links
 * followed), then each missing part appended, a dangling link among them followed to where it
 * points. Iterative, however deep the path: no part of the answer is left unresolved (a link kept
 * in it would be judged as where it sits, and followed by whatever later uses the path).
 */
export async function realPathOf(p: string): Promise<string> {
  return walk(p, (q) => realpath(q).catch(() => null), async (q) => ((await lstat(q).catch(() => null))?.isSymbolicLink() ? readlink(q).catch(() => null) : null));
}

/** `realPathOf` for setup time (configuration, once). */
export function realPathSync(p: string): string {
  const realpathOf = (q: string) => {
    try {
      return realpathSync(q);
    } catch {
      return null;
    }
  };
  const linkTarget = (q: string) => {
    try {
      return lstatSync(q).isSymbolicLink() ? readlinkSync(q) : null;
    } catch {
      return null;
    }
  };
  // The same walk; with synchronous calls every step settles at once, so the generator runs to its end here.
  const steps = walkSteps(p);
  let step = steps.next();
  while (!step.done) {
    const ask = step.value;
    step = steps.next(ask.kind === 'realpath' ? realpathOf(ask.path) : linkTarget(ask.path));
  }
  return step.value;
}

type Ask = { kind: 'realpath' | 'link'; path: string };

async function walk(p: string, realpathOf: (q: string) => Promise<string | null>, linkTarget: (q: string) => Promise<string | null>): Promise<string> {
  const steps = walkSteps(p);
  let step = steps.next();
  while (!step.done) {
    const ask = step.value;
    step = steps.next(ask.kind === 'realpath' ? await realpathOf(ask.path) : await linkTarget(ask.path));
  }
  return step.value;
}

/** The walk itself, asking for each real path and link target it needs (answered sync or async by the caller). */
function* walkSteps(p: string): Generator<Ask, string, string | null> {
  let abs = path.resolve(p);
  for (let hops = 0; ; hops++) {
    // The deepest existing ancestor, resolved; the names below it are missing.
    const missing: string[] = [];
    let base = abs;
    let real = yield { kind: 'realpath', path: base };
    while (real === null) {
      const up = path.dirname(base);
      if (up === base) {
        real = base;
        break;
      }
      missing.unshift(path.basename(base));
      base = up;
      real = yield { kind: 'realpath', path: base };
    }
    let current = real;
    let relinked: string | null = null;
    for (let i = 0; i < missing.length; i++) {
      const next = path.join(current, missing[i]!);
      const target = hops < MAX_LINK_HOPS ? yield { kind: 'link', path: next } : null;
      if (target !== null) {
        relinked = path.resolve(current, target, ...missing.slice(i + 1));
        break;
      }
      current = next;
    }
    if (relinked === null) return current;
    abs = relinked;
  }
}
