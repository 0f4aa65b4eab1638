/**
 * `GET` / `PUT /v1/relay/logging` (reference §1.8, seed §2C, §7): the log retention policy and the
 * logs' usage. PUT merges a partial policy over the effective one, saves it atomically and applies
 * it at once with a cleanup pass. Every invalid body is a 422 that leaves the saved policy
 * byte-identical; storage that prevents reading or saving the policy is a 503 (previous policy
 * kept); a saved policy whose cleanup failed is still a 200 (read `last_error` and `over_budget`).
 *
 * The body is read raw and parsed here: the kernel's strict JSON reader would answer a non-object
 * body with 400, and the policy's rule is 422.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, defineSchema, isHttpError, route, serviceUnavailable, unprocessable, type AnyRoute, type RouteAuth, type RouteContext } from '@keel/plugin-sdk';
import { snapshotOfBytes, snapshotOfJson } from '../traffic/body-snapshot.js';
import type { TrafficLog } from '../traffic/traffic-log.js';
import { InvalidPolicyError, PolicyStorageError, POLICY_RANGES } from '../traffic/retention-policy.js';

/** Largest PUT body: a policy is three integers. */
const MAX_POLICY_BODY_BYTES = 16 * 1024;

const policySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['retention_days', 'max_total_mb', 'max_file_mb'],
  properties: {
    retention_days: { type: 'integer', minimum: POLICY_RANGES.retention_days[0], maximum: POLICY_RANGES.retention_days[1], description: 'Days a log file is kept; 0: no age limit (the size limits still apply).' },
    max_total_mb: { type: 'integer', minimum: POLICY_RANGES.max_total_mb[0], maximum: POLICY_RANGES.max_total_mb[1], description: 'Budget of all log files, MiB.' },
    max_file_mb: { type: 'integer', minimum: POLICY_RANGES.max_file_mb[0], maximum: POLICY_RANGES.max_file_mb[1], description: 'Largest log file, MiB (at most max_total_mb).' },
  },
} as const;

const statusSchema = defineSchema({
  type: 'object',
  required: ['policy', 'policy_source', 'policy_path', 'logs_dir', 'usage_bytes', 'file_count', 'over_budget', 'cleanup_interval_seconds', 'last_cleanup_at', 'deleted_files', 'deleted_bytes', 'oversized_records', 'dropped_records', 'last_error'],
  properties: {
    policy: policySchema,
    policy_source: { type: 'string', enum: ['saved', 'config'] },
    policy_path: { type: 'string' },
    logs_dir: { type: 'string' },
    usage_bytes: { type: 'integer', minimum: 0 },
    file_count: { type: 'integer', minimum: 0 },
    over_budget: { type: 'boolean' },
    cleanup_interval_seconds: { type: 'integer', minimum: 1 },
    last_cleanup_at: { type: ['string', 'null'] },
    deleted_files: { type: 'integer', minimum: 0 },
    deleted_bytes: { type: 'integer', minimum: 0 },
    oversized_records: { type: 'integer', minimum: 0 },
    dropped_records: { type: 'integer', minimum: 0 },
    last_error: { type: ['string', 'null'] },
  },
});

const DESCRIPTION = 'The traffic logs\' retention policy and usage. PUT takes a JSON object with some of `retention_days` (0–36500, 0: no age limit), `max_total_mb` (1–1048576) and `max_file_mb` (1–10240, at most `max_total_mb`), each an integer, merged over the effective policy, saved to `<logs_dir>/.retention.json` (which then beats the config) and applied at once. 422: an invalid body (nothing saved); 503: the policy cannot be read or saved (the previous one stays); 200 even when the cleanup pass failed (see `last_error`).';

function storageFailure(err: unknown): never {
  if (err instanceof InvalidPolicyError) throw unprocessable(err.message, { code: 'invalid_logging_policy', ...(err.field ? { field: `body.${err.field}` } : {}) });
  if (err instanceof PolicyStorageError) throw serviceUnavailable(err.message, { code: 'logging_storage_unavailable', cause: err });
  throw err;
}

/** The raw body (a Buffer) as JSON: empty counts as `{}`; what does not parse is a 400. */
function parseBody(raw: unknown): unknown {
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`The request body is not valid JSON (${(err as Error).message}).`, { code: 'invalid_json' });
  }
}

/**
 * Runs `answer` between the request's `inbound_request` and `outbound_response` records (these are
 * not monitoring routes, reference §1.1). The request id is the gate's (`RelayCaller.requestId`)
 * when the route's auth is the relay gate, else a fresh `req_<32 hex>`.
 */
async function logged(traffic: TrafficLog, ctx: RouteContext<unknown, unknown, unknown, unknown>, answer: () => Promise<unknown>): Promise<unknown> {
  const caller = ctx.principal as { requestId?: unknown; clientIp?: unknown } | null;
  const requestId = typeof caller?.requestId === 'string' ? caller.requestId : `req_${randomUUID().replace(/-/g, '')}`;
  const { koa } = ctx;
  traffic.write({
    phase: 'inbound_request', request_id: requestId, method: koa.method, path: koa.path, query: koa.querystring,
    headers: koa.request.headers, client_ip: typeof caller?.clientIp === 'string' ? caller.clientIp : koa.ip,
    body: Buffer.isBuffer(ctx.body) ? snapshotOfBytes(ctx.body, koa.get('content-type') || undefined) : { kind: 'empty', bytes: 0 },
  });
  try {
    const result = await answer();
    traffic.write({ phase: 'outbound_response', request_id: requestId, status_code: 200, body: snapshotOfJson(result) });
    return result;
  } catch (err) {
    const status = isHttpError(err) ? err.status : 500;
    traffic.write({ phase: 'outbound_response', request_id: requestId, status_code: status, body: snapshotOfJson({ error: { message: (err as Error).message, code: isHttpError(err) ? err.code ?? null : null } }) });
    throw err;
  }
}

/** The two routes, behind `auth` (the relay gate's authenticator). */
export function loggingRoutes(traffic: TrafficLog, auth: RouteAuth): AnyRoute[] {
  return [
    route({
      method: 'GET',
      path: '/relay/logging',
      summary: 'The traffic log policy and usage',
      description: DESCRIPTION,
      tags: ['relay'],
      auth,
      responses: { 200: { schema: statusSchema } },
      handler: async (ctx) => logged(traffic, ctx, () => traffic.describe().catch(storageFailure)),
    }),
    route({
      method: 'PUT',
      path: '/relay/logging',
      summary: 'Change the traffic log policy (partial)',
      description: DESCRIPTION,
      tags: ['relay'],
      auth,
      bodyKind: 'raw',
      bodyLimitBytes: MAX_POLICY_BODY_BYTES,
      responses: { 200: { schema: statusSchema } },
      handler: async (ctx) => logged(traffic, ctx, async () => traffic.updatePolicy(parseBody(ctx.body as unknown)).catch(storageFailure)),
    }),
  ] as AnyRoute[];
}
