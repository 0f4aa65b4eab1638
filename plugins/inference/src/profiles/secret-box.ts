/**
 * Encrypts server-held secrets (endpoint API keys) at rest with AES-256-GCM. The key lives in a
 * file readable by the owner only, beside the data it protects; a copied database alone does
 * not reveal the keys.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export class SecretBox {
  private readonly key: Buffer;

  constructor(keyFile: string) {
    if (!existsSync(keyFile)) {
      mkdirSync(path.dirname(keyFile), { recursive: true, mode: 0o700 });
      const tmp = `${keyFile}.${process.pid}.tmp`;
      writeFileSync(tmp, randomBytes(32).toString('base64') + '\n', { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, keyFile);
    }
    this.key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    if (this.key.length !== 32) throw new Error(`${keyFile} does not hold a 32-byte key.`);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64')).join('.');
  }

  open(sealed: string): string {
    const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64'));
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(body!), decipher.final()]).toString('utf8');
  }
}
