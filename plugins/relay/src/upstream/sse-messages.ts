/**
 * Reads the events of an upstream Server-Sent Events body with `eventsource-parser` (CRLF/CR/LF
 * line ends, comments, multi-line data joined with `\n`). One event is bounded: an event (or an
 * unterminated line) past `maxEventChars` fails the call with a 502 instead of growing memory. An
 * event left open when the body ends is still delivered.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { RelayFailure } from '../contracts.js';

export interface SseMessage {
  /** The `event:` name, when the upstream sent one. */
  event?: string;
  data: string;
}

/**
 * The parser as a plain reader: `feed` a piece of the body, get the events it completed; `end` at
 * the end of the body. Throws a 502 `RelayFailure` past the size bound. (The upstream client reads
 * with it inside its own loop: one async generator less per event than a generator here.)
 */
export class SseReader {
  private ready: SseMessage[] = [];
  private tooLarge = false;
  private readonly parser;

  constructor(private readonly maxEventChars: number) {
    this.parser = createParser({
      maxBufferSize: maxEventChars,
      onEvent: (event: EventSourceMessage) => {
        // The parser bounds what it buffers; an event that arrived whole in one read is measured here.
        if (event.data.length > maxEventChars) this.tooLarge = true;
        else this.ready.push(event.event === undefined ? { data: event.data } : { event: event.event, data: event.data });
      },
      // Unknown fields and bad `retry` values are ignored, as a browser would; only the size bound stops the stream.
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.tooLarge = true;
      },
    });
  }

  /** The events completed by `text`, in order. */
  feed(text: string): SseMessage[] {
    if (!this.tooLarge) this.parser.feed(text);
    if (this.tooLarge) {
      throw new RelayFailure(502, { message: `The upstream sent an event larger than ${this.maxEventChars} bytes (the setting hosted.maxEventBytes).`, type: 'upstream_error', code: 'upstream_event_too_large' });
    }
    if (this.ready.length === 0) return NONE;
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** The body ended: an event left open is still delivered. */
  end(): SseMessage[] {
    return this.feed('\n\n');
  }
}

const NONE: SseMessage[] = [];
