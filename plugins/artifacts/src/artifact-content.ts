/**
 * What other plugins read of an account's artifacts (`artifactsToken`): the records, and the bytes
 * of one of them up to a bound (a node that transcribes an artifact reads it whole, never unbounded).
 */
import type { ArtifactRecord, ArtifactStore } from './artifact-record.js';
import type { BlobStore } from './blob-store.js';

export interface ArtifactsService extends ArtifactStore {
  /**
   * The bytes of `account`'s artifact `artifactId` with its record; null when the account has no
   * such artifact (another account's id included). Refused (`ArtifactTooLarge`) past `maxBytes`.
   */
  readContent(account: string, artifactId: string, maxBytes: number): Promise<{ record: ArtifactRecord; bytes: Buffer } | null>;
}

export class ArtifactTooLarge extends Error {
  constructor(readonly artifactId: string, readonly size: number, readonly limit: number) {
    super(`artifact ${artifactId} has ${size} bytes; at most ${limit} may be read here.`);
    this.name = 'ArtifactTooLarge';
  }
}

export function artifactsService(index: ArtifactStore, blobs: BlobStore): ArtifactsService {
  return {
    get: (account, artifactId) => index.get(account, artifactId),
    scan: (account, opts) => index.scan(account, opts),
    async readContent(account, artifactId, maxBytes) {
      const record = index.get(account, artifactId);
      if (!record) return null;
      if (record.size_bytes > maxBytes) throw new ArtifactTooLarge(artifactId, record.size_bytes, maxBytes);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of blobs.open(account, record.sha256)) {
        size += (chunk as Buffer).length;
        // The record said it fits; a blob that grew since is refused all the same.
        if (size > maxBytes) throw new ArtifactTooLarge(artifactId, size, maxBytes);
        chunks.push(chunk as Buffer);
      }
      return { record, bytes: Buffer.concat(chunks) };
    },
  };
}
