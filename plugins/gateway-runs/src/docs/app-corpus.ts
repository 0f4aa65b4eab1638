/**
 * The documentation of the five companion apps (reference gateway-surfaces §9.1): an app counts
 * as running on this gateway only when the admin configured its loopback URL (setting
 * `docs.apps.<id>`); Keel then fetches its `GET /llms.txt` within a timeout and a size cap. A
 * redirect is never followed and an HTML answer (an app's web page) is refused: each outcome is a
 * 404 whose sentence names the cause.
 */
import { corpusNotFound, corpusOf, utf8OrNull, type DocsCorpus } from './corpus-text.js';

/** App ids and their display names, as the origin's clients know them. */
export const DOCS_APPS: Readonly<Record<string, string>> = Object.freeze({
  flow: 'AbstractFlow',
  code: 'AbstractCode',
  observer: 'AbstractObserver',
  continuum: 'AbstractContinuum',
  entity: 'AbstractEntity',
});

/** Loopback only: the setting names an app on this machine, never a host elsewhere. */
export const LOOPBACK_URL_PATTERN = '^http://(127\\.0\\.0\\.1|localhost|\\[::1\\]):[0-9]{1,5}/?$';

export interface AppCorpusSettings {
  apps: Partial<Record<string, string>>;
  appFetchTimeoutMs: number;
  maxAppCorpusBytes: number;
}

export function isDocsApp(id: string): boolean {
  return Object.hasOwn(DOCS_APPS, id);
}

export async function appCorpus(id: string, settings: AppCorpusSettings): Promise<DocsCorpus> {
  const name = DOCS_APPS[id]!;
  const base = settings.apps[id];
  if (!base) {
    throw corpusNotFound('app_not_running', `${name} is not running on this gateway: no loopback URL is configured for it (gateway-runs setting docs.apps.${id}).`, { app: id });
  }
  const url = new URL('/llms.txt', base);
  const port = url.port || '80';
  const unavailable = (cause: string) => corpusNotFound('app_docs_unavailable', `${name} on port ${port} ${cause}, so it does not serve its documentation (llms.txt).`, { app: id });
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(settings.appFetchTimeoutMs), headers: { accept: 'text/plain, text/markdown;q=0.9, */*;q=0.1' } });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    const cause = timedOut ? `did not answer ${url.href} within ${settings.appFetchTimeoutMs} ms (gateway-runs setting docs.appFetchTimeoutMs)` : `nothing answers at ${url.href}`;
    throw corpusNotFound('app_not_running', `${name} is not running on this gateway: ${cause}.`, { app: id });
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw unavailable('redirects /llms.txt elsewhere (Keel never follows it)');
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw unavailable(`answered ${response.status} to /llms.txt`);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > settings.maxAppCorpusBytes) {
    await response.body?.cancel();
    throw unavailable(`offers an llms.txt of ${declared} bytes, above the ${settings.maxAppCorpusBytes}-byte limit (gateway-runs setting docs.maxAppCorpusBytes)`);
  }
  if (/\bhtml\b/i.test(response.headers.get('content-type') ?? '')) {
    await response.body?.cancel();
    throw unavailable('answers HTML (its web page) instead of text');
  }
  let bytes: Uint8Array | null;
  try {
    bytes = await readCapped(response, settings.maxAppCorpusBytes);
  } catch {
    throw unavailable(`did not finish sending /llms.txt within ${settings.appFetchTimeoutMs} ms (gateway-runs setting docs.appFetchTimeoutMs)`);
  }
  if (bytes === null) throw unavailable(`sends an llms.txt above the ${settings.maxAppCorpusBytes}-byte limit (gateway-runs setting docs.maxAppCorpusBytes)`);
  const text = utf8OrNull(bytes);
  if (text === null) throw unavailable('answers bytes that are not UTF-8 text');
  // A web page served as text/plain is still a page: its shell starts with a doctype or an <html> tag.
  if (/^\s*(<!doctype\s+html|<html[\s>])/i.test(text.slice(0, 512))) throw unavailable('answers HTML (its web page) instead of text');
  return corpusOf(name, `app:${id}:llms.txt`, text);
}

/** The body, or null as soon as it passes `max` bytes (the rest is never read). */
async function readCapped(response: Response, max: number): Promise<Uint8Array | null> {
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
