// The one error type of the client: a hub refusal (or a transport failure) with the HTTP status
// attached when there is one and the hub's own sentence as `detail`, shown verbatim, never pre-judged.

export class HubError extends Error {
  override readonly name = 'HubError';
  /** HTTP status of the hub's answer; null for transport failures (network, timeout, abort). */
  readonly status: number | null;
  /** The hub's sentence: body.detail when a string, else body.error, else the raw text. */
  readonly detail: string;
  /** What the client was doing (`post_message`, `channels`, ...). */
  readonly label: string;
  /** The parsed error body, when there was one. */
  readonly body: unknown;

  constructor(label: string, detail: string, status: number | null = null, body: unknown = null) {
    super(`${label} failed: ${detail}`);
    this.label = label;
    this.detail = detail;
    this.status = status;
    this.body = body;
  }
}

/** True when `err` is a hub answer with the given status. */
export function hasStatus(err: unknown, ...statuses: number[]): err is HubError {
  return err instanceof HubError && err.status !== null && statuses.includes(err.status);
}

/** Feature detection (seed §7, §9): an older hub answers 404 for a verb it does not have. */
export function isMissingFeature(err: unknown): err is HubError {
  return hasStatus(err, 404);
}

/** The sentence of an error body: `detail` when a string, else `error`, else the raw text. */
export function errorDetail(body: unknown, rawText: string, status: number | null): string {
  if (body !== null && typeof body === 'object') {
    const record = body as { detail?: unknown; error?: unknown };
    if (typeof record.detail === 'string') return record.detail;
    if (typeof record.error === 'string') return record.error;
    if (record.error !== null && typeof record.error === 'object' && typeof (record.error as { message?: unknown }).message === 'string') {
      return (record.error as { message: string }).message;
    }
  }
  const text = rawText.trim();
  if (text) return text;
  return status === null ? 'no answer' : `HTTP ${status}`;
}
