import { readFileSync } from 'node:fs';

/** The kernel's own version, read from its package.json so there is one source of truth. */
export const KERNEL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
