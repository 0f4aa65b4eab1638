/**
 * The hub's ledger-signing key: Ed25519 from node:crypto, generated once and kept in the plugin
 * folder (`<data>/plugins/hub/ledger-signing-key.pem`) readable by the owner only. Every ledger the
 * hub serves carries a signature over its heads (hub-client `headStatement`), so a transcript kept
 * with its signature proves the hub vouched for that history at that time.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LedgerHeadSignature, LedgerSigningKey } from '@keel/hub-client';
import { headStatement } from '@keel/hub-client/head-signature';
import type { Logger } from '@keel/plugin-sdk';
import { sha256Hex } from '../ids.js';

export const SIGNING_KEY_FILE = 'ledger-signing-key.pem';
const OWNER_ONLY = 0o600;

export class HeadSigner {
  private readonly privateKey: KeyObject;
  /** What `GET /ledger/key` serves. */
  readonly publicKey: LedgerSigningKey;

  constructor(dir: string, log: Pick<Logger, 'warn'>) {
    this.privateKey = loadOrCreate(path.join(dir, SIGNING_KEY_FILE), log);
    const raw = Buffer.from(createPublicKey(this.privateKey).export({ format: 'jwk' }).x!, 'base64url');
    this.publicKey = { alg: 'Ed25519', key_id: sha256Hex(raw), public_key: raw.toString('base64url') };
  }

  /** Signs a ledger's heads now. */
  sign(heads: { channel: string; count: number; head: string; keel_head: string }): LedgerHeadSignature {
    const signedAt = new Date().toISOString();
    const sig = sign(null, Buffer.from(headStatement(heads, signedAt), 'utf8'), this.privateKey);
    return { alg: 'Ed25519', key_id: this.publicKey.key_id, signed_at: signedAt, sig: sig.toString('base64url') };
  }
}

function loadOrCreate(file: string, log: Pick<Logger, 'warn'>): KeyObject {
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    // `wx`: two processes starting at once cannot both create a key; the loser reads the winner's.
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: OWNER_ONLY, flag: 'wx' });
    return privateKey;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (process.platform !== 'win32' && (statSync(file).mode & 0o077) !== 0) {
    log.warn('the ledger signing key was readable by others; restricting it to its owner', { file });
    chmodSync(file, OWNER_ONLY);
  }
  const key = createPrivateKey(readFileSync(file));
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`${file} is not an Ed25519 private key — move it away and restart to generate a new one`);
  return key;
}
