/**
 * Random salts for the Keel commitment, drawn from a pooled buffer: one `randomFillSync` call per
 * 256 salts instead of one per row (the call into the CSPRNG, not the bytes, was the cost).
 * The bytes are the same cryptographic randomness, and each is handed out once.
 */
import { randomFillSync } from 'node:crypto';

const POOL_SALTS = 256;

export class SaltPool {
  private readonly pool: Buffer;
  private next: number;

  constructor(private readonly saltBytes: number) {
    this.pool = Buffer.alloc(saltBytes * POOL_SALTS);
    this.next = this.pool.length;
  }

  /** A fresh salt as lower-case hex. */
  take(): string {
    if (this.next === this.pool.length) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    const salt = this.pool.toString('hex', this.next, this.next + this.saltBytes);
    this.next += this.saltBytes;
    return salt;
  }
}
