/** How an upload route answers a bundle it cannot read: 413 when it inflates past the limit, else 400. */
import { badRequest, payloadTooLarge, type HttpError } from '@keel/plugin-sdk';
import { BundleError, BundleTooLarge } from '../bundles/read-bundle.js';

export function bundleRefusal(err: unknown): HttpError | null {
  if (err instanceof BundleTooLarge) return payloadTooLarge(`Bundle refused: ${err.message}.`, { code: 'bundle_too_large', field: 'body.file' });
  if (err instanceof BundleError) return badRequest(`Invalid bundle: ${err.message}.`, { code: 'invalid_bundle', field: 'body.file' });
  return null;
}
