/**
 * `POST /v1/relay/accounts/refresh` (reference §1.6, §3.7): force a fresh usage probe of every
 * hosted account and answer their statuses. Nothing is cleared up front: a hold ends only when the
 * fresh report shows capacity (seed §3). A monitoring route: no inbound/outbound records.
 */
import { defineSchema, HttpError, route, type AnyRoute, type RouteAuth } from '@keel/plugin-sdk';
import type { RelayCaller } from '../contracts.js';
import type { RelayAccountPool } from '../pool/account-pool.js';

const refreshAnswer = defineSchema({
  type: 'object',
  required: ['object', 'accounts'],
  properties: {
    object: { type: 'string', const: 'accounts.refresh' },
    accounts: { type: 'array', items: { type: 'object', required: ['slug', 'limited'], properties: { slug: { type: 'string' }, limited: { type: 'boolean' } } } },
  },
});

/** The relay's request id when the gate gave one, else the kernel's. */
export function relayRequestId(principal: unknown, fallback: string): string {
  const id = (principal as Partial<RelayCaller> | null)?.requestId;
  return typeof id === 'string' ? id : fallback;
}

export function accountsRoutes(pool: RelayAccountPool | null, auth: RouteAuth): AnyRoute[] {
  return [
    route({
      method: 'POST',
      path: '/relay/accounts/refresh',
      summary: 'Probe every hosted account now; a hold is released only when the fresh usage report shows capacity',
      tags: ['relay'],
      auth,
      responses: { 200: { schema: refreshAnswer } },
      async handler({ principal, requestId }) {
        if (!pool) throw new HttpError(501, 'The hosted runtime is disabled (relay.hosted.enabled is false): there are no accounts to refresh.', { code: 'unsupported_error' });
        return { object: 'accounts.refresh', accounts: await pool.refresh(relayRequestId(principal, requestId)) };
      },
    }) as AnyRoute,
  ];
}
