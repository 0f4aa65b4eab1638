/**
 * Reads uploaded bundles off the main thread: the `bundle-unzip` pool unzips within the limits
 * (see bounded-unzip.ts), then the manifest and flows are parsed here, and a flow starting a
 * subflow the bundle lacks is refused (subflow-references.ts). Stored bundles, already
 * checked when they were uploaded, are read in place with the same limits.
 */
import type { WorkerPool } from '@keel/plugin-sdk';
import { BundleError } from './bundle-error.js';
import { BundleTooLarge, type BundleLimits } from './bounded-unzip.js';
import { bundleFromFiles, type Bundle } from './read-bundle.js';
import { assertSubflowsPresent } from './subflow-references.js';
import type { UnzipResult } from './unzip-worker.js';

export const UNZIP_WORKER_FILE = new URL('./unzip-worker.js', import.meta.url);

export class UploadReader {
  constructor(private readonly pool: WorkerPool, readonly limits: BundleLimits) {}

  async read(bytes: Uint8Array): Promise<Bundle> {
    const result = (await this.pool.run({ bytes, limits: this.limits })) as UnzipResult;
    if (!result.ok) throw result.tooLarge ? new BundleTooLarge(result.message) : new BundleError(result.message);
    const bundle = bundleFromFiles(result.files, this.limits);
    assertSubflowsPresent(bundle);
    return bundle;
  }
}
