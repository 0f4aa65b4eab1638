/**
 * The text routes: `POST /v1/chat/completions`, `/v1/completions` and `/v1/responses`. Each reads
 * the body itself (so the relay's own JSON messages and size bound apply), strips and discloses the
 * unsupported parameters (§2.2), applies the loud rejections, routes the model (`ModelCatalog.route`,
 * else by prefix), and hands the call to the hosted or the cli lane. Everything that can fail does
 * so before any stream header. A stream answer is written as `text/event-stream` frame by frame;
 * when the client goes, the lane's upstream is closed at once (the route's signal).
 *
 * Every answer carries `x-relay-overhead-ms`: the time spent in the relay itself, waiting for the
 * upstream excluded (until the answer's headers; for a stream, until its first content event).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { HANDLED, isHttpError, openSse, reply, route, unprocessable, serviceUnavailable, type Reply, type RouteAuth } from '@keel/plugin-sdk';
import type Koa from 'koa';
import type { RelayConfig } from '../config.js';
import {
  RelayFailure,
  type CallInfo,
  type LaneAnswer,
  type ModelCatalog,
  type ModelRoute,
  type RelayCaller,
  type TextLane,
  type TextRoute,
  type TrafficSink,
} from '../contracts.js';
import { failureReply, relayErrorFormat } from '../errors.js';
import { snapshotOfBytes, snapshotOfJson } from '../traffic/body-snapshot.js';
import { loggedHeaders } from '../traffic/redaction.js';
import { checkTextBody, conversationOf, parseJsonBody, stripParameters } from './text-body-rules.js';

export interface TextRoutesDeps {
  /** The relay gate (its principal is a `RelayCaller`). */
  auth: RouteAuth;
  settings: RelayConfig;
  traffic: TrafficSink;
  lanes: { hosted?: TextLane; cli?: TextLane };
  /** Model routing; without one, ids route by prefix (`cli:`/`cli-` to the cli lane, others hosted). */
  catalog?: ModelCatalog;
}

const ADAPTATION_REASON = {
  hosted: 'The hosted upstream does not support these parameters, so the compatibility layer omitted them.',
  cli: 'The local command-line client has no sampling or output-token-limit controls, so the compatibility layer omitted them.',
} as const;

const ROUTES: Array<{ path: string; route: TextRoute; summary: string }> = [
  { path: '/chat/completions', route: 'chat_completions', summary: 'Create a chat completion (stream or not)' },
  { path: '/completions', route: 'completions', summary: 'Create a text completion (stream or not)' },
  { path: '/responses', route: 'responses', summary: 'Create a model response (hosted models only; stream or not)' },
];

const DESCRIPTION = 'A JSON object (an empty body is `{}`), read by the relay itself up to `limits.maxBodyBytes`. '
  + '`temperature`, `top_p`, `presence_penalty`, `frequency_penalty`, `max_output_tokens`, `max_completion_tokens` and `max_tokens` are removed '
  + 'and named in the `x-relay-ignored-parameters` header. With `stream: true` the answer is `text/event-stream`. Every answer has `x-relay-overhead-ms`.';

export function textRoutes(deps: TextRoutesDeps) {
  return ROUTES.map(({ path, route: name, summary }) =>
    route({
      method: 'POST',
      path,
      summary,
      description: DESCRIPTION,
      tags: ['relay'],
      auth: deps.auth,
      bodyKind: 'raw',
      bodyLimitBytes: deps.settings.limits.maxBodyBytes,
      responses: { 200: { description: 'The answer (JSON, or `text/event-stream` when `stream` is true)' } },
      handler: (ctx) => handle(deps, name, ctx.koa, ctx.body as Buffer | undefined, ctx.principal as RelayCaller | null, ctx.signal),
    }),
  );
}

async function handle(deps: TextRoutesDeps, name: TextRoute, koa: Koa.Context, raw: Buffer | undefined, caller: RelayCaller | null, signal: AbortSignal): Promise<unknown> {
  const began = performance.now();
  const requestId = caller?.requestId ?? `req_${randomBytes(16).toString('hex')}`;
  const { traffic } = deps;
  traffic.write({
    phase: 'inbound_request',
    request_id: requestId,
    method: koa.method,
    path: koa.path,
    query: koa.querystring,
    headers: loggedHeaders(koa.headers),
    client_ip: caller?.clientIp ?? koa.ip,
    body: snapshotOfBytes(raw ?? Buffer.alloc(0), koa.get('content-type') || undefined),
  });
  const headers: Record<string, string> = {};
  const call: CallInfo = { requestId, route: name, model: '', upstreamModel: '', stream: false, signal };
  const overhead = () => String(Math.max(0, performance.now() - began - (call.upstreamWaitMs ?? 0)).toFixed(3));
  try {
    const body = parseJsonBody(raw, deps.settings.limits.maxJsonDepth);
    const ignored = stripParameters(body);
    const model = checkTextBody(name, body);
    const target = await routeModel(deps, model, requestId);
    if (ignored.length) {
      headers['x-relay-ignored-parameters'] = ignored.join(',');
      traffic.write({ phase: 'compatibility_adaptation', request_id: requestId, ignored_parameters: ignored, reason: ADAPTATION_REASON[target.provider] });
    }
    if (target.provider === 'cli' && name === 'responses') {
      throw unprocessable('The local command-line client runtime supports `/v1/chat/completions` and `/v1/completions` only.', { code: 'unsupported_for_provider', field: 'model' });
    }
    const lane = deps.lanes[target.provider];
    if (!lane) throw serviceUnavailable(`The ${target.provider === 'cli' ? 'local command-line client' : 'hosted'} runtime is not available in this relay.`, { code: 'provider_unavailable' });
    call.model = model;
    call.upstreamModel = target.upstreamModel;
    call.stream = body.stream === true;
    const conversationId = conversationOf(body);
    if (conversationId) call.conversationId = conversationId;
    const answer = await lane.answer(body, call);
    if (answer.kind === 'json') {
      const sent = { ...headers, ...answer.headers, 'x-relay-overhead-ms': overhead() };
      traffic.write(outboundRecord(requestId, answer.status, answer.body));
      return reply(answer.status, answer.body, sent);
    }
    await writeStream(koa, answer, { ...headers, ...answer.headers, 'x-relay-overhead-ms': overhead() }, signal, traffic, requestId);
    return HANDLED;
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    traffic.write(outboundRecord(requestId, refused.status, refused.body));
    return reply(refused.status, refused.body, { ...refused.headers, ...headers, 'x-relay-overhead-ms': overhead() });
  }
}

/** Where a model goes: the catalog's answer (it writes the `provider_resolution` record), else by prefix (reference §1.3). */
async function routeModel(deps: TextRoutesDeps, model: string, requestId: string): Promise<ModelRoute> {
  if (deps.catalog) return deps.catalog.route(model, requestId);
  let target: ModelRoute;
  if (model.startsWith('cli:') || model.startsWith('cli-')) {
    if (!deps.settings.cli.enabled) throw unprocessable('The local command-line client runtime is disabled for this relay.', { code: 'unsupported_for_provider', field: 'model' });
    target = { provider: 'cli', upstreamModel: model.slice(4) };
  } else {
    if (!deps.settings.hosted.enabled) throw unprocessable(`Unknown model \`${model}\` and the hosted runtime is disabled.`, { code: 'unsupported_for_provider', field: 'model' });
    target = { provider: 'hosted', upstreamModel: model };
  }
  deps.traffic.write({ phase: 'provider_resolution', request_id: requestId, provider: target.provider, model });
  return target;
}

/** A refusal as the relay's reply (status, envelope, headers); null for an unexpected error (the kernel's 500). */
function refusal(err: unknown): Reply | null {
  if (err instanceof RelayFailure) return failureReply(err);
  if (isHttpError(err)) {
    const formatted = relayErrorFormat(err);
    return reply(formatted.status, formatted.body, err.headers);
  }
  return null;
}

function outboundRecord(requestId: string, status: number, body: unknown): Record<string, unknown> {
  const record: Record<string, unknown> = { phase: 'outbound_response', request_id: requestId, status_code: status, body: snapshotOfJson(body) };
  if (typeof body === 'object' && body !== null) {
    for (const field of ['id', 'object', 'model', 'usage']) {
      const value = (body as Record<string, unknown>)[field];
      if (value !== undefined) record[field] = value;
    }
  }
  return record;
}

/**
 * Writes a lane's frames as `text/event-stream` (no buffering, flushed per frame, paced by the
 * socket). The stream ends when the frames do; a client that goes stops the lane (its upstream
 * closes through the signal, and `return()` runs the lane's cleanup).
 */
async function writeStream(koa: Koa.Context, answer: Extract<LaneAnswer, { kind: 'stream' }>, headers: Record<string, string>, signal: AbortSignal, traffic: TrafficSink, requestId: string): Promise<void> {
  const frames = answer.frames[Symbol.asyncIterator]();
  let sse;
  const corked = corkPerTick(koa.res);
  try {
    corked.cork();
    sse = openSse(koa, { headers, signal });
  } catch (err) {
    // Refused before any byte (too many open streams): the lane's upstream closes now.
    await frames.return?.();
    throw err;
  }
  try {
    for (;;) {
      const next = await frames.next();
      if (next.done) break;
      const frame = next.value;
      if (sse.closed) break;
      if (sse.backedUp) await sse.drained();
      if (traffic.streamLines) traffic.write({ phase: 'outbound_stream_chunk', request_id: requestId, body: snapshotOfBytes(Buffer.from(frame, 'utf8'), 'text/event-stream') });
      corked.cork();
      if (!sse.send(Buffer.from(frame, 'utf8'))) break;
    }
  } finally {
    await frames.return?.();
    sse.close();
  }
}

/**
 * Frames ready in the same tick leave in one socket write: the response is corked at the first write
 * of a tick and uncorked when the tick's work is done (`process.nextTick` runs after the promise
 * jobs queued meanwhile). Nothing waits for later data: every frame is on the wire by the end of
 * the tick it was written in, as before; only the syscalls (headers, frames, the end) are merged.
 */
function corkPerTick(res: Koa.Context['res']): { cork(): void } {
  let corked = false;
  const uncork = () => {
    corked = false;
    res.uncork();
  };
  return {
    cork() {
      if (corked || res.destroyed) return;
      corked = true;
      res.cork();
      process.nextTick(uncork);
    },
  };
}
