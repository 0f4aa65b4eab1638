/**
 * Routes the OpenAI API has and the relay does not serve (reference §1.13): embeddings, images,
 * audio and realtime sessions answer 501 `unsupported_error`. They are counted in
 * `requests_total` and their inbound request is logged like any real request.
 */
import { route, type AnyRoute, type Authenticator } from '@keel/plugin-sdk';
import type { RelayCaller, TrafficSink } from '../contracts.js';
import { RelayFailure } from '../contracts.js';
import { failureReply } from '../errors.js';
import { snapshotOfBytes, snapshotOfJson } from '../traffic/body-snapshot.js';

export const UNSUPPORTED_SENTENCE = 'This subscription-backed server does not expose a verified upstream implementation for this route yet.';

export interface UnpublishedRoutesDeps {
  auth: Authenticator<RelayCaller>;
  traffic: TrafficSink;
  maxBodyBytes: number;
}

const PATHS = ['/embeddings', '/images/:op', '/audio/:op', '/realtime/sessions'];

export function unpublishedRoutes(deps: UnpublishedRoutesDeps): AnyRoute[] {
  return PATHS.map((path) => route({
    method: 'POST',
    path,
    auth: deps.auth,
    tags: ['relay'],
    summary: `Not served by the relay (501 unsupported_error)`,
    bodyKind: 'raw',
    bodyLimitBytes: deps.maxBodyBytes,
    responses: { 501: { description: '`{error: {type: "unsupported_error"}}`: the relay has no verified upstream for this route.' } },
    handler: ({ principal, body, koa }) => {
      const { request, requestId, clientIp } = principal;
      const url = new URL(request.url ?? '/', 'http://relay.invalid');
      deps.traffic.write({
        phase: 'inbound_request', request_id: requestId, method: request.method, path: url.pathname, query: url.search.slice(1),
        headers: request.headers, client_ip: clientIp, body: snapshotOfBytes(body as Buffer, koa.get('content-type') || undefined),
      });
      const answer = failureReply(new RelayFailure(501, { message: UNSUPPORTED_SENTENCE, type: 'unsupported_error', code: null, param: null }));
      deps.traffic.write({ phase: 'outbound_response', request_id: requestId, status_code: 501, body: snapshotOfJson(answer.body) });
      return answer;
    },
  }) as AnyRoute);
}
