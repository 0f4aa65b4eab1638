/**
 * Span ids (reference §8.1): 32 hex of a SHA-256 over the owner and the span's content. Keel leaves
 * the creation time out and puts the writing run and node in, so the same effect performed again
 * (after a crash, or a loop repeating the same payload, which the origin reuses) names the same span.
 */
import { createHash } from 'node:crypto';

export function spanIdOf(owner: string, content: Record<string, unknown>): string {
  return createHash('sha256').update(owner).update(JSON.stringify(content)).digest('hex').slice(0, 32);
}

/** A message id given at compaction to a message that had none: derived, so a replay gives the same. */
export function derivedMessageId(seed: string, index: number): string {
  return `msg_${createHash('sha256').update(`${seed}:${index}`).digest('hex').slice(0, 32)}`;
}
