/**
 * Schema-first route declarations. One declaration drives request validation, authentication,
 * the OpenAPI document and the handler's static types.
 */
import type Koa from 'koa';
import type { Authenticator } from './authenticators.js';
import type { Principal } from './core-tokens.js';
import type { Schema } from './schema.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/**
 * Who may call a route:
 * - `public`: anyone; a valid token is still read when sent.
 * - `user`: any signed-in principal (401 without a valid token).
 * - `admin`: an admin principal (401 without a token, 403 for a non-admin).
 * - `none`: no authentication at all (`principal` is null).
 * - an `Authenticator`: the plugin's own credentials (seat keys, a relay token), checked by the
 *   kernel before validation; `principal` is what the authenticator returned.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any principal type: `Authenticator<P>` is covariant in P only through `authenticate`'s result
export type RouteAuth = 'public' | 'user' | 'admin' | 'none' | Authenticator<any>;

/** The handler's `principal` for a route's `auth`: never null where the route requires one. */
export type PrincipalFor<A extends RouteAuth> =
  A extends Authenticator<infer P> ? P : A extends 'user' | 'admin' ? Principal : A extends 'public' ? Principal | null : null;

/**
 * How the request body is read before the handler runs. `multipart-stream` reads nothing: the
 * handler parses `koa.req` itself (a bounded streaming parser such as busboy), and `body`, if
 * given, only documents the form fields in OpenAPI (`multipart/form-data`); it is not validated.
 */
export type BodyKind = 'json' | 'multipart' | 'multipart-stream' | 'raw' | 'none';

export interface UploadedFile {
  fieldName: string;
  filename: string;
  mimetype: string;
  size: number;
  /** Temporary file on disk; the kernel removes it after the response. */
  filepath: string;
}

export interface RouteContext<P, Q, B, Who = Principal | null> {
  params: P;
  query: Q;
  body: B;
  /** Files of a multipart body, by field name. */
  files: Record<string, UploadedFile[]>;
  /** Who is calling, as the route's `auth` decided (see `PrincipalFor`). */
  principal: Who;
  /** Aborts when the client goes away or the kernel stops. */
  signal: AbortSignal;
  requestId: string;
  /** The underlying Koa context, for headers, streaming responses and the like. */
  koa: Koa.Context;
}

/** An explicit response: status, body and headers. Handlers may also return a plain value (200 JSON). */
export interface Reply {
  readonly __reply: true;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Reply {
  return { __reply: true, status, body, headers };
}

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as { __reply?: unknown }).__reply === true;
}

/** Marker a handler returns when it has written the response itself (SSE, files, redirects). */
export const HANDLED: unique symbol = Symbol('keel.handled');

export interface ResponseSpec {
  description?: string;
  schema?: Schema<unknown>;
  /** Content type when not JSON (`text/event-stream`, `application/octet-stream`). */
  contentType?: string;
}

export interface RouteDefinition<P = unknown, Q = unknown, B = unknown, A extends RouteAuth = RouteAuth> {
  method: HttpMethod;
  /** Path relative to its mount point's prefix, with `:name` parameters (`/runs/:run_id`). */
  path: string;
  /** The plugin mount point this route lives under (default `default`). */
  mount?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  /** Defaults to `user`. */
  auth?: A;
  params?: Schema<P>;
  query?: Schema<Q>;
  body?: Schema<B>;
  /** Defaults to `json` when a body schema is given, else `none`. */
  bodyKind?: BodyKind;
  /** Largest accepted body in bytes (defaults to the kernel's `server.bodyLimitBytes`). */
  bodyLimitBytes?: number;
  responses?: Record<number, ResponseSpec>;
  /** Excluded from the OpenAPI document (rare: internal helpers). */
  hidden?: boolean;
  handler(ctx: RouteContext<P, Q, B, PrincipalFor<A>>): Promise<unknown> | unknown;
}

/**
 * Declares a route; the generic parameters are inferred from the schemas and from `auth` (omitted
 * is `user`), so the handler's `principal` has the type that `auth` guarantees.
 */
export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined, A extends RouteAuth = 'user'>(
  definition: RouteDefinition<P, Q, B, A>,
): RouteDefinition<P, Q, B, A> {
  return definition;
}

/** A route whose parameter types have been erased, as the kernel stores it. */
export type AnyRoute = RouteDefinition<unknown, unknown, unknown, RouteAuth>;
