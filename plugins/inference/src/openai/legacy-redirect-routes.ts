/** `/core/v1/*` is the deprecated home of the OpenAI API: every method answers 308 to `/v1/*`. */
import { badRequest, reply, route, defineSchema } from '@keel/plugin-sdk';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const hasControl = (s: string) => [...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
/** Characters a path segment may carry unencoded (RFC 3986 pchar without `%`). */
const SEGMENT_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@]/;

/** A decoded path segment encoded again: the Location header must be printable ASCII and mean the same path. */
function encodeSegment(segment: string): string {
  let out = '';
  for (const ch of segment) {
    out += SEGMENT_SAFE.test(ch) ? ch : [...Buffer.from(ch, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** The raw query string with anything a header cannot carry percent-encoded. */
function encodeSearch(search: string): string {
  return search.replace(/[^\x21-\x7e]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

export function legacyRedirectRoutes(openaiPrefix: () => string) {
  const redirect = (rest: string, search: string) => reply(308, undefined, { location: `${openaiPrefix()}${rest}${encodeSearch(search)}` });
  return METHODS.flatMap((method) => [
    route({
      method,
      path: '/',
      mount: 'legacy',
      auth: 'public',
      tags: ['openai'],
      summary: 'Deprecated: 308 to /v1',
      handler: ({ koa }) => redirect('', koa.search),
    }),
    route({
      method,
      path: '/*rest',
      mount: 'legacy',
      auth: 'public',
      tags: ['openai'],
      summary: 'Deprecated: 308 to the same path under /v1',
      params: defineSchema({ type: 'object', required: ['rest'], properties: { rest: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } } }),
      handler: ({ params, koa }) => {
        const segments = Array.isArray(params.rest) ? params.rest : [params.rest];
        if (segments.some(hasControl)) throw badRequest('The path contains control characters (such as %00); no route has such a name.', { code: 'invalid_path' });
        return redirect(`/${segments.map((s) => s.split('/').map(encodeSegment).join('/')).join('/')}`, koa.search);
      },
    }),
  ]);
}
