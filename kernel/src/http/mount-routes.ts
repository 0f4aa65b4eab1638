/**
 * Mounts plugin route declarations on one router. Each route runs, in order: its plugin's error
 * shape, authentication, body reading, validation of params/query/body from the declared schemas,
 * the handler, and the response. Two plugins claiming one method and path is a boot error.
 */
import { rm } from 'node:fs/promises';
import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import {
  HANDLED, isReply, unauthorized, badRequest, payloadTooLarge, exceedsJsonDepth, admit, credentialOf,
  type AnyRoute, type Authenticator, type ErrorFormatter, type RouteContext, type UploadedFile,
} from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';
import { PRINCIPAL_STATE_KEY, type TokenAuthService } from '../auth/auth-service.js';
import type { SchemaValidator } from '../validation/validator.js';
import { ERROR_FORMAT_KEY } from './error-middleware.js';
import { lazyProperty } from './lazy-property.js';
import { responseCheck } from './response-check.js';
import { REQUEST_ID_KEY, SIGNAL_KEY } from './request-tracker.js';

export interface MountedRoute {
  pluginId: string;
  prefix: string;
  /** Prefix and route path joined: what clients call. */
  fullPath: string;
  route: AnyRoute;
  errorFormat: ErrorFormatter;
}

export interface RouteMountDeps {
  auth: TokenAuthService;
  validator: SchemaValidator;
  bodyLimitBytes: number;
  /** JSON bodies nested deeper than this are refused before validation (which recurses). */
  jsonDepthLimit: number;
  uploadDir: string;
  /** Check JSON responses against the route's declared response schemas (`server.validateResponses`). */
  validateResponses?: boolean;
}

export function joinPath(prefix: string, path: string): string {
  const p = path === '/' ? '' : path.startsWith('/') ? path : `/${path}`;
  if (prefix === '/' || prefix === '') return p || '/';
  return `${prefix}${p}`;
}

/** `/runs/:run_id` and `/runs/:id` are the same route for clash purposes. */
function routeKey(method: string, fullPath: string): string {
  return `${method} ${fullPath.replace(/[:*][A-Za-z0-9_]+/g, ':')}`;
}

export function checkRouteClashes(routes: MountedRoute[]): void {
  const seen = new Map<string, MountedRoute>();
  const problems: string[] = [];
  for (const r of routes) {
    const key = routeKey(r.route.method, r.fullPath);
    const other = seen.get(key);
    if (other) {
      const who = other.pluginId === r.pluginId ? `plugin '${r.pluginId}' twice` : `plugins '${other.pluginId}' and '${r.pluginId}'`;
      problems.push(`route ${r.route.method} ${r.fullPath} is declared by ${who}.`);
    } else {
      seen.set(key, r);
    }
  }
  if (problems.length) throw new BootError(problems);
}

/** The kernel's own bearer-token scheme in the OpenAPI document; no plugin authenticator may take its name. */
export const KERNEL_SECURITY_SCHEME = 'bearerAuth';

/**
 * Every plugin authenticator by its scheme name. One name is one scheme in the OpenAPI document, so
 * two authenticators may share a name only with the same scheme; the kernel's name is taken.
 */
export function securitySchemesOf(routes: MountedRoute[]): Map<string, Authenticator<unknown>> {
  const byName = new Map<string, Authenticator<unknown>>();
  const problems: string[] = [];
  for (const { route, pluginId } of routes) {
    if (typeof route.auth !== 'object') continue;
    const { name, scheme } = route.auth;
    const seen = byName.get(name);
    if (name === KERNEL_SECURITY_SCHEME) problems.push(`plugin '${pluginId}' names an authenticator '${name}', the kernel's own security scheme; choose another name.`);
    else if (seen && JSON.stringify(seen.scheme) !== JSON.stringify(scheme)) problems.push(`two authenticators are named '${name}' with different security schemes (one is plugin '${pluginId}''s on ${route.method} ${route.path}); give each its own name.`);
    else if (!seen) byName.set(name, route.auth);
  }
  if (problems.length) throw new BootError([...new Set(problems)]);
  return byName;
}

export function buildRouter(routes: MountedRoute[], deps: RouteMountDeps): Router {
  const router = new Router({ exclusive: 'specificity' });
  const readers = new BodyReaders(deps);
  for (const mounted of routes) {
    router.register(mounted.fullPath, [mounted.route.method], routeMiddleware(mounted, deps, readers));
  }
  return router;
}

/** `signal` of a handler's context, read from the request state only when the handler asks. */
const signalProperty = lazyProperty<RouteContext<unknown, unknown, unknown, unknown>>('signal', (rc) => rc.koa.state[SIGNAL_KEY]);

function routeMiddleware(mounted: MountedRoute, deps: RouteMountDeps, readers: BodyReaders): RouterMiddleware {
  const { route } = mounted;
  const auth = route.auth ?? 'user';
  const bodyKind = route.bodyKind ?? (route.body ? 'json' : 'none');
  const validateParams = route.params ? deps.validator.compileCoercing(route.params, 'params') : null;
  const validateQuery = route.query ? deps.validator.compileCoercing(route.query, 'query') : null;
  const validateBody = route.body && bodyKind !== 'multipart-stream'
    ? bodyKind === 'multipart' ? deps.validator.compileCoercing(route.body, 'body') : deps.validator.compile(route.body, 'body')
    : null;
  const readBody = readers.reader(bodyKind, route.bodyLimitBytes);
  const checkResponse = deps.validateResponses ? responseCheck(route, mounted.fullPath, deps.validator) : null;

  return async (ctx) => {
    ctx.state[ERROR_FORMAT_KEY] = mounted.errorFormat;
    // A plugin's principal (a hub seat) stays out of the kernel's principal slot, which holds accounts.
    let principal: unknown = null;
    if (typeof auth === 'object') {
      principal = await pluginPrincipal(auth, ctx, deps.auth);
    } else if (auth !== 'none') {
      const credential = deps.auth.credentialOf(ctx);
      const account = credential ? await deps.auth.authenticateRequest(ctx, credential) : null;
      if (auth !== 'public') {
        if (!credential) throw missingCredential();
        if (!account) throw deps.auth.invalidCredential(credential);
      }
      // A browser cookie signs a request in only if the request passes the CSRF and origin rules.
      if (account) deps.auth.refuseUnsafeSessionUse(ctx);
      if (auth === 'admin') deps.auth.requireAdmin(account);
      ctx.state[PRINCIPAL_STATE_KEY] = account;
      principal = account;
    }

    const params = validateParams ? validateParams({ ...ctx.params }) : ctx.params;
    const query = validateQuery ? validateQuery(plainQuery(ctx.query)) : ctx.query;
    let files: Record<string, UploadedFile[]> = {};
    if (readBody) {
      try {
        await readBody(ctx);
      } catch (err) {
        throw bodyError(err, bodyKind);
      }
      if (bodyKind === 'json' && exceedsJsonDepth(ctx.request.body, deps.jsonDepthLimit)) {
        throw badRequest(`The JSON body nests objects and arrays more than ${deps.jsonDepthLimit} levels deep; flatten it (the limit is the setting server.jsonDepthLimit).`, { code: 'json_too_deep' });
      }
      files = collectFiles(ctx);
      if (Object.keys(files).length) ctx.res.once('close', () => void removeFiles(files));
    }
    let body: unknown = ctx.request.body;
    if (validateBody) {
      if (bodyKind === 'json' && hasBody(ctx) && !ctx.is('json')) {
        throw badRequest(`This route expects a JSON body (Content-Type: application/json), got ${ctx.get('content-type') || 'none'}.`, { code: 'invalid_body' });
      }
      body = validateBody(body ?? {});
    }

    const routeCtx = {
      params,
      query,
      body,
      files,
      principal,
    } as RouteContext<unknown, unknown, unknown, unknown>;
    Object.defineProperty(routeCtx, 'signal', signalProperty);
    routeCtx.requestId = String(ctx.state[REQUEST_ID_KEY]);
    routeCtx.koa = ctx as unknown as Koa.Context;
    // Await only what is a promise: a synchronous handler (health, about) skips a microtask.
    const returned = route.handler(routeCtx);
    const result = returned instanceof Promise ? await returned : returned;
    if (result === HANDLED) return;
    if (isReply(result)) {
      ctx.status = result.status;
      ctx.set(result.headers);
      if (result.body !== undefined) ctx.body = result.body;
      checkResponse?.(ctx as unknown as Koa.Context);
      return;
    }
    if (result === undefined) {
      if (ctx.body === undefined && ctx.respond !== false) ctx.status = 204;
      return;
    }
    ctx.body = result;
    checkResponse?.(ctx as unknown as Koa.Context);
  };
}

/** The 401 for a request that carries no credential at all. */
export function missingCredential(): Error {
  return unauthorized('Sign in first: send the header Authorization: Bearer <token>, or sign in in the browser (POST /api/gateway/session/login).', {
    code: 'missing_token',
    headers: { 'www-authenticate': 'Bearer' },
  });
}

/**
 * A plugin authenticator's principal: a source throttled for failed sign-ins is refused before its
 * credential is looked at, and a credential that is no one's counts against the source. Also what
 * guards the unmatched paths of a mount whose `guardUnmatched` names the authenticator.
 */
export async function pluginPrincipal(authenticator: Authenticator<unknown>, ctx: Koa.Context, auth: TokenAuthService): Promise<unknown> {
  const credential = credentialOf(authenticator.scheme, ctx.req);
  if (credential !== null) auth.refuseThrottledSource(ctx);
  return admit(authenticator, credential, ctx.req, () => auth.recordFailedAuthentication(ctx, authenticator.name), ctx.res);
}

/** A body that could not be read, explained: bad JSON and broken uploads name themselves, size limits keep their 413. */
function bodyError(err: unknown, kind: string): unknown {
  if (kind === 'multipart') return multipartError(err);
  const status = (err as { status?: unknown }).status;
  if (status !== 400 || kind !== 'json') return err;
  const message = (err as Error).message;
  return badRequest(`The request body is not valid JSON (${message.replace(/\.$/, '')}).`, { code: 'invalid_json', cause: err });
}

/** formidable's codes for an empty file and for a failure of the server's own upload directory. */
const FORMIDABLE_EMPTY_FILE = 1010;
const FORMIDABLE_CANNOT_CREATE_DIR = 1018;

/** A multipart body formidable could not read: the client's fault (400, or 413 for size) unless the server's upload directory failed. */
function multipartError(err: unknown): unknown {
  const { code, httpCode, message } = err as { code?: unknown; httpCode?: unknown; message?: unknown };
  // A system error (ENOSPC, EACCES: a string code) or the upload directory failing is the server's, not the client's.
  if (typeof code === 'string' || code === FORMIDABLE_CANNOT_CREATE_DIR) return err;
  if (httpCode === 413) return payloadTooLarge(`The upload is too large (${String(message)}).`, { code: 'payload_too_large', cause: err });
  if (code === FORMIDABLE_EMPTY_FILE) return badRequest('An uploaded file is empty; send the file with its contents.', { code: 'empty_file', cause: err });
  return badRequest(`The upload could not be read as multipart/form-data (${String(message).replace(/\.$/, '')}); send a complete body with its boundary.`, { code: 'invalid_multipart', cause: err });
}

function hasBody(ctx: Koa.Context): boolean {
  const length = ctx.get('content-length');
  return (length !== '' && length !== '0') || ctx.get('transfer-encoding') !== '';
}

function plainQuery(query: Koa.Context['query']): Record<string, unknown> {
  return { ...query };
}

/** koa-body middlewares, one per body kind and size limit, made once. */
class BodyReaders {
  private readonly cache = new Map<string, Koa.Middleware>();

  constructor(private readonly deps: RouteMountDeps) {}

  reader(kind: string, limit?: number): ((ctx: Koa.Context) => Promise<void>) | null {
    if (kind === 'none' || kind === 'multipart-stream') return null;
    const bytes = limit ?? this.deps.bodyLimitBytes;
    if (kind === 'raw') return (ctx) => readRawBody(ctx, bytes);
    const key = `${kind}:${bytes}`;
    let mw = this.cache.get(key);
    if (!mw) {
      mw = koaBody({
        json: kind === 'json',
        text: false,
        multipart: kind === 'multipart',
        urlencoded: false,
        jsonStrict: true,
        jsonLimit: bytes,
        formidable: { uploadDir: this.deps.uploadDir, maxFileSize: bytes, maxTotalFileSize: bytes, keepExtensions: false },
      });
      this.cache.set(key, mw);
    }
    const middleware = mw;
    return (ctx) => middleware(ctx, async () => undefined) as Promise<void>;
  }
}

/** Reads the body as bytes (for routes that take binary payloads), refusing more than `limit`. */
async function readRawBody(ctx: Koa.Context, limit: number): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw payloadTooLarge(`The request body is larger than ${limit} bytes.`, { code: 'payload_too_large' });
    chunks.push(chunk);
  }
  (ctx.request as { body?: unknown }).body = Buffer.concat(chunks);
}

interface FormidableFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

function collectFiles(ctx: Koa.Context): Record<string, UploadedFile[]> {
  const raw = (ctx.request as { files?: Record<string, FormidableFile | FormidableFile[]> }).files;
  const out: Record<string, UploadedFile[]> = {};
  for (const [field, value] of Object.entries(raw ?? {})) {
    out[field] = (Array.isArray(value) ? value : [value]).map((f) => ({
      fieldName: field,
      filename: f.originalFilename ?? 'upload',
      mimetype: f.mimetype ?? 'application/octet-stream',
      size: f.size,
      filepath: f.filepath,
    }));
  }
  return out;
}

async function removeFiles(files: Record<string, UploadedFile[]>): Promise<void> {
  await Promise.allSettled(Object.values(files).flat().map((f) => rm(f.filepath, { force: true })));
}
