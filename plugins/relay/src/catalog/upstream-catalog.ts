/**
 * `GET {baseUrl}/models` of one hosted account: the account's catalog, in the upstream's order.
 * Bounded in size and time; every failure is a `RelayFailure` with the status the client should see:
 * the upstream's own status and error object, a 503 when the upstream refuses the account's key
 * (the client's relay token is fine, the relay's credentials are not), a 502 when it cannot be
 * reached or answers something that is not a catalog.
 */
import http from 'node:http';
import https from 'node:https';
import { RelayFailure, type OpenAiErrorObject } from '../contracts.js';
import type { UpstreamEndpoint } from './catalog-sources.js';

/** One model of an upstream catalog, with the metadata the relay block shows. */
export interface CatalogEntry {
  id: string;
  created: number;
  displayName: string | null;
  description: string | null;
  visibility: string | null;
}

/** A catalog is small; more than this is not one. */
const MAX_CATALOG_BYTES = 8 * 1024 * 1024;
const MAX_ID_LENGTH = 200;

export async function fetchUpstreamCatalog(endpoint: UpstreamEndpoint, timeoutMs: number): Promise<CatalogEntry[]> {
  const url = new URL(`${endpoint.baseUrl.replace(/\/+$/, '')}/models`);
  const { status, body } = await get(url, endpoint, timeoutMs);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (status < 200 || status >= 300) throw failureOf(status, parsed, url);
  const data = (parsed as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) throw new RelayFailure(502, { message: `The upstream catalog at ${url.host} answered something that is not a model list ({data: [...]}).`, type: 'upstream_error', code: 'upstream_bad_catalog', param: null });
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  for (const item of data) {
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH || seen.has(id)) continue;
    seen.add(id);
    const record = item as Record<string, unknown>;
    entries.push({
      id,
      created: typeof record.created === 'number' && Number.isFinite(record.created) ? record.created : 0,
      displayName: text(record.display_name) ?? text(record.name),
      description: text(record.description),
      visibility: text(record.catalog_visibility) ?? text(record.visibility),
    });
  }
  return entries;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 2000) : null;
}

function failureOf(status: number, parsed: unknown, url: URL): RelayFailure {
  const upstream = (parsed as { error?: unknown } | undefined)?.error;
  const error: OpenAiErrorObject = typeof upstream === 'object' && upstream !== null && typeof (upstream as { message?: unknown }).message === 'string'
    ? (upstream as OpenAiErrorObject)
    : { message: `The upstream catalog at ${url.host} answered HTTP ${status}.`, type: 'upstream_error', code: null };
  if (status === 401 || status === 403) {
    return new RelayFailure(503, { message: `The upstream at ${url.host} refused the account's API key (${error.message}); fix the key under hosted.accounts.`, type: 'authentication_error', code: 'upstream_auth_rejected', param: null }, { 'x-relay-upstream-auth': 'rejected' });
  }
  return new RelayFailure(status >= 400 && status <= 599 ? status : 502, error);
}

function get(url: URL, endpoint: UpstreamEndpoint, timeoutMs: number): Promise<{ status: number; body: Buffer }> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const unreachable = (why: string) => reject(new RelayFailure(502, { message: `The upstream catalog at ${url.host} could not be read (${why}).`, type: 'upstream_error', code: 'upstream_unreachable', param: null }));
    const req = client.request(url, { method: 'GET', agent: endpoint.agent, headers: { authorization: `Bearer ${endpoint.apiKey}`, accept: 'application/json' }, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_CATALOG_BYTES) {
          req.destroy();
          return unreachable(`more than ${MAX_CATALOG_BYTES} bytes`);
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks) }));
      res.on('error', (err) => unreachable(err.message));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    req.on('error', (err) => unreachable(err.message));
    req.end();
  });
}
