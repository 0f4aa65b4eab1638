/**
 * `GET /api/llm` (reference B.15 `GET /api/llm/models`): the model ids of one configured
 * OpenAI-shaped endpoint, read from its `GET <baseUrl>/models` within the web settings' time and
 * size bounds. Without the inference plugin: the endpoints are the voice plugin's own settings, and
 * a caller only names one of them (never a URL, so the route cannot be aimed at another host).
 */
import { badRequest, HttpError } from '@keel/plugin-sdk';
import type { WebConfig } from './web-config.js';

export interface LlmListing {
  ok: true;
  provider: string;
  base_url: string;
  models: string[];
}

export async function listLlmModels(settings: WebConfig['llm'], requested: string | undefined, signal: AbortSignal): Promise<LlmListing> {
  const names = Object.keys(settings.providers);
  const provider = requested?.trim() || settings.defaultProvider || names[0];
  if (!provider) throw badRequest('No LLM endpoint is configured: add one under the voice plugin\'s web.llm.providers (name → {baseUrl}).');
  const endpoint = Object.hasOwn(settings.providers, provider) ? settings.providers[provider] : undefined;
  if (!endpoint) throw badRequest(`Unknown LLM provider: ${provider}. Configured: ${names.join(', ') || 'none'}.`);
  const baseUrl = endpoint.baseUrl.replace(/\/+$/, '');
  const body = await fetchBounded(`${baseUrl}/models`, endpoint.apiKey, settings, signal, provider);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw upstream(`The LLM endpoint ${provider} answered ${baseUrl}/models with a body that is not JSON.`);
  }
  return { ok: true, provider, base_url: baseUrl, models: modelIdsOf(parsed).slice(0, settings.maxModels) };
}

/** `data[].id` (OpenAI), else `models[].name|id` (Ollama's listing), de-duplicated in order. */
export function modelIdsOf(listing: unknown): string[] {
  const record = listing && typeof listing === 'object' ? (listing as Record<string, unknown>) : {};
  const rows = Array.isArray(record.data) ? record.data : Array.isArray(record.models) ? record.models : [];
  const ids = rows.map((row) => {
    if (typeof row === 'string') return row;
    const r = row && typeof row === 'object' ? (row as Record<string, unknown>) : {};
    return typeof r.id === 'string' ? r.id : typeof r.name === 'string' ? r.name : null;
  });
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 512))];
}

async function fetchBounded(url: string, apiKey: string | undefined, settings: WebConfig['llm'], signal: AbortSignal, provider: string): Promise<string> {
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutMs)]);
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) }, signal: deadline, redirect: 'error' });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError' || (deadline.aborted && !signal.aborted);
    throw upstream(timedOut ? `The LLM endpoint ${provider} did not answer within ${settings.timeoutMs} ms.` : `The LLM endpoint ${provider} could not be reached (${(err as Error).message}).`);
  }
  if (!res.ok) {
    await res.body?.cancel().catch(() => undefined);
    throw upstream(`The LLM endpoint ${provider} answered ${url} with HTTP ${res.status}.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (!reader) return '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > settings.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw upstream(`The LLM endpoint ${provider} answered a model list larger than ${settings.maxBytes} bytes (web.llm.maxBytes).`);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw upstream(`The LLM endpoint ${provider} broke off its answer (${(err as Error).message}).`);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const upstream = (sentence: string) => new HttpError(502, sentence);
