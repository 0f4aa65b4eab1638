/** Files and conversations serve the hosted lane only: 501 when the hosted runtime is off (reference §1.12). */
import { RelayFailure } from '../contracts.js';

export function refuseUnlessHosted(hostedEnabled: boolean, what: 'Local files' | 'Local conversations'): void {
  if (!hostedEnabled) {
    throw new RelayFailure(501, { message: `${what} are available only when the hosted runtime is enabled (setting hosted.enabled).`, type: 'unsupported_error', code: 'hosted_runtime_disabled', param: null });
  }
}
