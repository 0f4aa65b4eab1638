/** `/core/v1/*` is the deprecated home of the OpenAI API: every method answers 308 to `/v1/*`. */
import { reply, route, schema } from '@keel/plugin-sdk';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function legacyRedirectRoutes(openaiPrefix: () => string) {
  const redirect = (rest: string, search: string) => reply(308, undefined, { location: `${openaiPrefix()}${rest}${search}` });
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
      params: schema<{ rest: string | string[] }>({ type: 'object', properties: { rest: {} } }),
      handler: ({ params, koa }) => redirect(`/${Array.isArray(params.rest) ? params.rest.join('/') : params.rest}`, koa.search),
    }),
  ]);
}
