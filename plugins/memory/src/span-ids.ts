/** Span ids (reference §8.1): 32 hex of the SHA-256 of the owner run id and the span's content. */
import { createHash } from 'node:crypto';

export function spanIdOf(owner: string, content: Record<string, unknown>): string {
  return createHash('sha256').update(owner).update(JSON.stringify(content)).digest('hex').slice(0, 32);
}

/** A message id given at compaction to a message that had none: derived, so a replay gives the same. */
export function derivedMessageId(seed: string, index: number): string {
  return `msg_${createHash('sha256').update(`${seed}:${index}`).digest('hex').slice(0, 32)}`;
}
