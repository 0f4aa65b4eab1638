/**
 * The HTTP error family. Throw one of these from a route or a service; the kernel turns it into
 * the response shape of the plugin that owns the route (gateway `{detail}`, OpenAI `{error}`, ...).
 */
export type ErrorDetail = string | ({ message: string } & Record<string, unknown>);

export interface HttpErrorOptions {
  /** Machine-readable code (`invalid_request`, `workspace_refused`, ...). */
  code?: string;
  /** The request field at fault, when there is one (`body.flow_id`). */
  field?: string;
  /** Extra headers to send (`WWW-Authenticate`, `Location`, ...). */
  headers?: Record<string, string>;
  /** Underlying error, kept for logs, never sent to the client. */
  cause?: unknown;
}

export class HttpError extends Error {
  readonly status: number;
  readonly detail: ErrorDetail;
  readonly code: string | undefined;
  readonly field: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, detail: ErrorDetail, options: HttpErrorOptions = {}) {
    super(typeof detail === 'string' ? detail : detail.message, { cause: options.cause });
    this.name = 'HttpError';
    this.status = status;
    this.detail = detail;
    this.code = options.code ?? (typeof detail === 'object' ? stringField(detail, 'reason_code') ?? stringField(detail, 'reason') : undefined);
    this.field = options.field;
    this.headers = options.headers ?? {};
  }
}

function stringField(obj: Record<string, unknown>, key: string): string | undefined {
  const value = obj[key];
  return typeof value === 'string' ? value : undefined;
}

const make = (status: number) => (detail: ErrorDetail, options?: HttpErrorOptions) => new HttpError(status, detail, options);

export const badRequest = make(400);
export const unauthorized = make(401);
export const forbidden = make(403);
export const notFound = make(404);
export const methodNotAllowed = make(405);
export const conflict = make(409);
export const gone = make(410);
export const payloadTooLarge = make(413);
export const unprocessable = make(422);
export const tooManyRequests = make(429);
export const serviceUnavailable = make(503);

export function isHttpError(err: unknown): err is HttpError {
  return err instanceof HttpError || (typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number');
}

/**
 * Thrown from a plugin's `setup` or `start` when it cannot run in this process for a reason the user
 * can fix (a lock another process holds, a missing file). The message is one sentence that says what
 * to do; the host prints it without a stack and exits non-zero.
 */
export class StartRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartRefusedError';
  }
}

/** True for a `StartRefusedError`, also one made by another copy of the SDK. */
export function isStartRefused(err: unknown): err is StartRefusedError {
  return err instanceof StartRefusedError || (err instanceof Error && err.name === 'StartRefusedError');
}

/** What a formatter returns: the status and JSON body to send. */
export interface FormattedError {
  status: number;
  body: unknown;
}

/** Turns an error into a response body. Each plugin may declare its own (the default is the gateway shape). */
export type ErrorFormatter = (err: HttpError) => FormattedError;

/** The gateway shape: `{detail: "sentence"}` or `{detail: {reason_code, message, field?}}`. */
export const gatewayErrorFormat: ErrorFormatter = (err) => {
  if (typeof err.detail !== 'string') return { status: err.status, body: { detail: err.detail } };
  if (err.code || err.field) {
    const detail: Record<string, unknown> = { reason_code: err.code ?? 'error', message: err.detail };
    if (err.field) detail.field = err.field;
    return { status: err.status, body: { detail } };
  }
  return { status: err.status, body: { detail: err.detail } };
};

/** The OpenAI shape: `{error: {message, type, code, param}}`. */
export const openaiErrorFormat: ErrorFormatter = (err) => {
  const type =
    err.status === 401 ? 'authentication_error'
    : err.status === 403 ? 'permission_error'
    : err.status === 404 ? 'not_found_error'
    : err.status === 429 ? 'rate_limit_error'
    : err.status >= 500 ? 'server_error'
    : 'invalid_request_error';
  return {
    status: err.status,
    // OpenAI names the parameter without our location prefix: `temperature`, not `body.temperature`.
    body: { error: { message: err.message, type, code: err.code ?? null, param: err.field?.replace(/^(body|query|params)\./, '') ?? null } },
  };
};
