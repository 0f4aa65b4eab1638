/**
 * A problem that stops the kernel from booting: bad config, a plugin that cannot load, a missing
 * provider, a route clash. It lists every problem found, each a sentence naming what to fix.
 */
export class BootError extends Error {
  readonly problems: string[];

  constructor(problems: string[] | string, options?: { cause?: unknown }) {
    const list = Array.isArray(problems) ? problems : [problems];
    super(list.length === 1 ? list[0]! : `${list.length} problems:\n  - ${list.join('\n  - ')}`, options);
    this.name = 'BootError';
    this.problems = list;
  }
}
