/**
 * The `inbound_request` and `outbound_response` traffic records of the catalog's and storage's
 * routes (reference §5.3), and the relay request id they carry: the gate's (`req_<32 hex>` of the
 * `RelayCaller` principal), or a fresh one when the route runs under another authenticator.
 */
import { randomBytes } from 'node:crypto';
import { isHttpError, isReply, type Reply, type RouteContext } from '@keel/plugin-sdk';
import { RelayFailure, type TrafficSink } from '../contracts.js';
import { failureReply } from '../errors.js';
import { snapshotOfJson, type LoggedBody } from '../traffic/body-snapshot.js';
import { loggedHeaders } from '../traffic/redaction.js';

export interface Exchange {
  requestId: string;
  /** Records the answer (a value, a reply, or an error, rethrown) and returns what the route returns. */
  answer<T>(work: () => Promise<T>): Promise<T | Reply>;
}

/** Opens the exchange: writes `inbound_request` with `body` (a snapshot) and answers the request id. */
export function openExchange(traffic: TrafficSink, principal: unknown, koa: RouteContext<unknown, unknown, unknown>['koa'], body: LoggedBody | undefined): Exchange {
  const caller = principal as { requestId?: unknown; clientIp?: unknown } | null;
  const requestId = typeof caller?.requestId === 'string' ? caller.requestId : `req_${randomBytes(16).toString('hex')}`;
  traffic.write({
    phase: 'inbound_request', request_id: requestId, method: koa.method, path: koa.path, query: koa.querystring,
    headers: loggedHeaders(koa.headers), client_ip: typeof caller?.clientIp === 'string' ? caller.clientIp : koa.ip, body: body ?? { kind: 'empty', bytes: 0 },
  });
  const outbound = (status: number, value: unknown) => {
    const fields = typeof value === 'object' && value !== null ? value as Record<string, unknown> : {};
    traffic.write({ phase: 'outbound_response', request_id: requestId, status_code: status, body: snapshotOfJson(value), ...(typeof fields.id === 'string' ? { id: fields.id } : {}), ...(typeof fields.object === 'string' ? { object: fields.object } : {}) });
  };
  return {
    requestId,
    answer: async (work) => {
      try {
        const value = await work();
        if (isReply(value)) outbound(value.status, value.body);
        else if (typeof value !== 'symbol') outbound(200, value);
        return value;
      } catch (err) {
        if (err instanceof RelayFailure) {
          const reply = failureReply(err);
          outbound(reply.status, reply.body);
          return reply;
        }
        if (isHttpError(err)) outbound(err.status, { error: { message: err.message, code: err.code ?? null } });
        throw err;
      }
    },
  };
}
