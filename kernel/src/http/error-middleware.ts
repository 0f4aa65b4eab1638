/**
 * Turns anything a route throws into the response shape of the plugin that owns the path.
 * A 5xx never leaks a stack: the client gets a sentence with the request id, the log gets the rest.
 */
import type Koa from 'koa';
import { gatewayErrorFormat, HttpError, isHttpError, type ErrorFormatter, type Logger } from '@keel/plugin-sdk';
import { REQUEST_ID_KEY } from './request-tracker.js';

export const ERROR_FORMAT_KEY = 'keelErrorFormat';

/** Picks the error shape for a path that no route claimed (the longest matching mount prefix wins). */
export type FormatForPath = (path: string) => ErrorFormatter;

export function errorMiddleware(log: Logger, formatForPath: FormatForPath): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const requestId = String(ctx.state[REQUEST_ID_KEY] ?? '');
      const httpError = toHttpError(err, requestId);
      // An unexpected throw is a bug: log it with its stack. A deliberate 5xx (a missing model
      // file, an unreachable upstream) is an operational condition: one line, no stack.
      if (httpError.status >= 500 && !isHttpError(err)) log.error('request failed', { err, requestId, method: ctx.method, path: ctx.path });
      else if (httpError.status >= 500) log.warn('request refused', { status: httpError.status, code: httpError.code, message: httpError.message, requestId, method: ctx.method, path: ctx.path });
      if (ctx.headerSent || !ctx.writable) return;
      const format = (ctx.state[ERROR_FORMAT_KEY] as ErrorFormatter | undefined) ?? formatForPath(ctx.path) ?? gatewayErrorFormat;
      const { status, body } = format(httpError);
      ctx.status = status;
      ctx.set(httpError.headers);
      ctx.body = body;
    }
  };
}

function toHttpError(err: unknown, requestId: string): HttpError {
  if (isHttpError(err)) return err;
  // Errors from koa-body, co-body and @koa/router carry a status and an `expose` flag.
  const e = err as { status?: unknown; statusCode?: unknown; expose?: unknown; message?: unknown; type?: unknown };
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status < 500 && status >= 400) {
    const message = typeof e.message === 'string' && e.expose !== false ? e.message : 'Bad request';
    const code = status === 413 ? 'payload_too_large' : status === 415 ? 'unsupported_media_type' : status === 405 ? 'method_not_allowed' : 'invalid_body';
    const sentence = e.type === 'entity.parse.failed' ? `The request body is not valid JSON (${message}).` : message;
    return new HttpError(status, sentence.endsWith('.') ? sentence : `${sentence}.`, { code, cause: err });
  }
  return new HttpError(500, `Internal server error (request id ${requestId}).`, { code: 'internal_error', cause: err });
}
