/**
 * The reference's "admin key only" gate (§8.0): no key → 401 `missing bearer token`; any other key,
 * an operator's seat key included → 403 with the route's own sentence. `GET /admin/slow` answers a
 * missing key with that 403 too (`missingIsForbidden`), as the reference's app-level route does.
 */
import { defineAuthenticator, forbidden, type Authenticator } from '@keel/plugin-sdk';
import type { ADMIN_PRINCIPAL, SeatAuth } from '../identity/seat-auth.js';

export function adminKeyOnly(auth: SeatAuth, refusal: string, missingIsForbidden = false): Authenticator<typeof ADMIN_PRINCIPAL> {
  const adminKey = auth.adminKey('this route', refusal);
  if (!missingIsForbidden) return adminKey;
  return defineAuthenticator({
    name: adminKey.name,
    scheme: adminKey.scheme,
    authenticate: (key, request) => {
      if (key === null) throw forbidden(refusal);
      return adminKey.authenticate(key, request);
    },
  });
}
