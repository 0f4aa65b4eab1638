/**
 * Random bytes for the hub's per-message draws (ULID randomness, commitment salts), taken from a
 * pooled buffer: one `randomFillSync` call per 4 KiB instead of one `randomBytes` call per draw (the
 * call into the CSPRNG, not the bytes, was the cost). Same cryptographic randomness; every byte is
 * handed out once. Not for secrets that outlive the process (seat keys, tokens use `randomBytes`).
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

class RandomPool {
  private readonly pool = Buffer.alloc(POOL_BYTES);
  private next = POOL_BYTES;

  /** `n` (≤ 4096) fresh random bytes; the view is valid until the next call. */
  take(n: number): Buffer {
    if (this.next + n > POOL_BYTES) {
      randomFillSync(this.pool);
      this.next = 0;
    }
    const bytes = this.pool.subarray(this.next, this.next + n);
    this.next += n;
    return bytes;
  }
}

export const randomPool = new RandomPool();
