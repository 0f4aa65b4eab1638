/**
 * The bootstrap admin: at first start the kernel creates the `admin` account and writes its
 * token to `<data>/auth/admin.token` (mode 0600). `KEEL_ADMIN_TOKEN` replaces the file's token
 * and is never written to disk.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_ROLE, newTokenValue, type AccountStore } from './account-store.js';
import { BootError } from '../boot-error.js';

export const ADMIN_ACCOUNT = 'admin';
const FILE_TOKEN_ID = 'bootstrap-file';
const ENV_TOKEN_ID = 'bootstrap-env';

export function adminTokenPath(dataDir: string): string {
  return path.join(dataDir, 'auth', 'admin.token');
}

/** Makes sure the admin account and token exist; returns the admin token in force. */
export async function bootstrapAdmin(store: AccountStore, dataDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  await store.ensure({ account: ADMIN_ACCOUNT, tenant: 'default', roles: [ADMIN_ROLE] });
  const fromEnv = env.KEEL_ADMIN_TOKEN?.trim();
  if (fromEnv) {
    if (fromEnv.length < 16) throw new BootError(`KEEL_ADMIN_TOKEN must be at least 16 characters long (it has ${fromEnv.length}); set a longer random secret.`);
    await store.register(ADMIN_ACCOUNT, fromEnv, ENV_TOKEN_ID, 'KEEL_ADMIN_TOKEN');
    await store.revoke(ADMIN_ACCOUNT, FILE_TOKEN_ID);
    return fromEnv;
  }
  await store.revoke(ADMIN_ACCOUNT, ENV_TOKEN_ID);
  const file = adminTokenPath(dataDir);
  let token = readTokenFile(file);
  if (!token) {
    token = newTokenValue();
    writeSecretFile(file, token + '\n');
  }
  await store.register(ADMIN_ACCOUNT, token, FILE_TOKEN_ID, 'bootstrap admin token file');
  return token;
}

function readTokenFile(file: string): string | null {
  try {
    const value = readFileSync(file, 'utf8').trim();
    return value || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Writes a file readable by the owner only, atomically (temp name, then rename). */
export function writeSecretFile(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
