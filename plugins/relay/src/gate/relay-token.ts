/**
 * The relay token (reference §7): `RELAY_TOKEN` in the environment wins; else the file
 * `auth.tokenFile` (relative to the plugin's data folder), created at first start with 32 random
 * bytes (base64url), mode 0600, when `auth.autoGenerateToken` is on. With bearer auth required and
 * no token to be had, the start is refused with a sentence saying how to provide one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { StartRefusedError } from '@keel/plugin-sdk';
import type { RelayConfig } from '../config.js';

export const RELAY_TOKEN_ENV = 'RELAY_TOKEN';

export interface RelayToken {
  /** The token, or null (open mode without one, or a command inspecting a relay that never started). */
  readonly value: string | null;
  readonly source: 'env' | 'file' | 'none';
  /** The token file's absolute path (where it is or would be). */
  readonly file: string;
  /** True when this start created the file. */
  readonly created: boolean;
}

export function tokenFilePath(auth: RelayConfig['auth'], pluginDir: string): string {
  return path.resolve(pluginDir, auth.tokenFile);
}

/** The first 12 hex digits of the token's sha256: names a token in logs and status without revealing it. */
export function tokenFingerprint(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 12);
}

export interface LoadTokenOptions {
  env: NodeJS.ProcessEnv;
  /** False for a command that only inspects: nothing is created and nothing refused. */
  create: boolean;
}

export async function loadRelayToken(auth: RelayConfig['auth'], pluginDir: string, options: LoadTokenOptions): Promise<RelayToken> {
  const file = tokenFilePath(auth, pluginDir);
  const fromEnv = options.env[RELAY_TOKEN_ENV]?.trim();
  if (fromEnv) return { value: fromEnv, source: 'env', file, created: false };
  const stored = await readToken(file);
  if (stored) return { value: stored, source: 'file', file, created: false };
  if (!options.create || (!auth.requireBearerAuth && !auth.autoGenerateToken)) return { value: null, source: 'none', file, created: false };
  if (!auth.autoGenerateToken) {
    throw new StartRefusedError(
      `The relay needs its token and has none: set ${RELAY_TOKEN_ENV}, or write one into ${file}, `
      + '(or set relay.auth.autoGenerateToken to true to create it at first start, or relay.auth.requireBearerAuth to false for open mode on loopback).',
    );
  }
  if (!auth.requireBearerAuth) return { value: null, source: 'none', file, created: false };
  const token = randomBytes(32).toString('base64url');
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    // `wx`: never overwrite a token another process wrote in the meantime.
    await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const raced = await readToken(file);
    if (raced) return { value: raced, source: 'file', file, created: false };
    throw new StartRefusedError(`The relay token file ${file} exists but is empty: put a token in it or delete it so the relay creates one.`);
  }
  return { value: token, source: 'file', file, created: true };
}

async function readToken(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StartRefusedError(`The relay token file ${file} cannot be read (${(err as Error).message}); fix its permissions or set ${RELAY_TOKEN_ENV}.`, { cause: err });
  }
}
