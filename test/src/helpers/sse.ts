/**
 * A server-sent-events client for tests: opens a stream over a real socket (fetch), parses its
 * events with `eventsource-parser` (id, event, data; comments such as heartbeats kept apart), reads
 * until a condition or the end with a deadline, and resumes from the last id (Last-Event-ID).
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One event as received: `event` is 'message' when the server named none (as a browser says). */
export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/** An event's data, parsed as JSON. */
export function json<T = Record<string, unknown>>(event: SseEvent): T {
  return JSON.parse(event.data) as T;
}

export interface OpenSseOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as `Last-Event-ID`: the server resumes after this id. */
  lastEventId?: string | number;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface CollectOptions {
  /** Stop reading once this holds (checked after each chunk); default: a `done` event arrived. */
  until?: (stream: SseStream) => boolean;
  /** Milliseconds before giving up (default 30 s): the stream is closed and the error names `what`. */
  deadline?: number;
  /** What is awaited, for the timeout error (default "the done event"). */
  what?: string;
}

const DEFAULT_DEADLINE_MS = 30_000;

/** A parser that hands each complete event to `onEvent` and each comment line to `onComment`; `feed` it text. */
export function sseParser(onEvent: (event: SseEvent) => void, onComment: (comment: string) => void = () => undefined): EventSourceParser {
  return createParser({ onEvent: (m) => onEvent({ event: m.event ?? 'message', id: m.id, data: m.data }), onComment });
}

/** Opens `url` as an event stream; the response is available at once (status, headers), events as they are read. */
export async function openSse(url: string, options: OpenSseOptions = {}): Promise<SseStream> {
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
  const response = await fetch(url, { headers, signal: options.signal });
  return new SseStream(url, options, response);
}

export class SseStream {
  /** The events received so far, in order. */
  readonly events: SseEvent[] = [];
  /** The comment lines received so far (heartbeats: `: ping` arrives as " ping"). */
  readonly comments: string[] = [];
  /** The raw text received so far, for tests of the wire format itself. */
  text = '';
  /** True once the server ended the stream. */
  ended = false;
  /** True once `close` stopped reading here. */
  closed = false;
  // Taken at the first read, so that a refused stream's body can still be read as JSON.
  private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  private readonly decoder = new TextDecoder();
  private readonly parser = sseParser(
    (e) => this.events.push(e),
    (c) => this.comments.push(c),
  );

  constructor(
    readonly url: string,
    private readonly options: OpenSseOptions,
    readonly response: Response,
  ) {
    if (!response.body) this.ended = true;
  }

  /** The events named `name`. */
  named(name: string): SseEvent[] {
    return this.events.filter((e) => e.event === name);
  }

  /** The id of the last event that carried one. */
  get lastEventId(): string | undefined {
    return this.events.findLast((e) => e.id !== undefined)?.id;
  }

  /** The last event received. */
  get last(): SseEvent | undefined {
    return this.events.at(-1);
  }

  /**
   * Reads until `until` holds (default: `done` arrived) or the stream ends, and answers the events
   * received so far; after `deadline` ms it closes the stream and throws, naming `what` and the
   * events seen. A condition that holds leaves the stream open for more reading.
   */
  async collect(options: CollectOptions = {}): Promise<SseEvent[]> {
    const until = options.until ?? ((s: SseStream) => s.events.some((e) => e.event === 'done'));
    const ms = options.deadline ?? DEFAULT_DEADLINE_MS;
    const giveUpAt = Date.now() + ms;
    this.reader ??= this.response.body?.getReader();
    while (!until(this) && !this.ended && !this.closed) {
      const left = giveUpAt - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, left))));
      const chunk = await Promise.race([this.reader!.read().catch(() => ({ done: true as const, value: undefined })), timeout]).finally(() => clearTimeout(timer));
      if (chunk === 'timeout') {
        await this.close();
        const seen = this.events.map((e) => e.event).join(', ');
        throw new Error(`timed out after ${ms / 1000} s waiting for ${options.what ?? 'the done event'} on ${this.url}; events so far: [${seen}]`);
      }
      if (chunk.done) {
        this.ended = !this.closed;
        break;
      }
      const text = this.decoder.decode(chunk.value, { stream: true });
      this.text += text;
      this.parser.feed(text);
    }
    return this.events;
  }

  /** Opens the same URL again, resuming after the last id received here (Last-Event-ID). */
  resume(options: OpenSseOptions = {}): Promise<SseStream> {
    return openSse(this.url, { ...this.options, lastEventId: this.lastEventId, ...options });
  }

  /** Stops reading (the server sees the client go). */
  async close(): Promise<void> {
    this.closed = true;
    await (this.reader ?? this.response.body)?.cancel().catch(() => undefined);
  }
}

/**
 * Opens `url`, reads it to its end (the server ends a finished run's stream after `done`, so a test
 * sees anything sent after it) or until `options.until`, closes it, and answers the stream.
 */
export async function readSse(url: string, options: OpenSseOptions & CollectOptions = {}): Promise<SseStream> {
  const stream = await openSse(url, options);
  try {
    await stream.collect({ until: () => false, what: 'the end of the stream', ...options });
  } finally {
    await stream.close();
  }
  return stream;
}
