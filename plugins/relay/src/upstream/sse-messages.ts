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

export async function* sseMessages(body: AsyncIterable<string>, maxEventChars: number): AsyncGenerator<SseMessage> {
  const ready: SseMessage[] = [];
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (event: EventSourceMessage) => {
      // The parser bounds what it buffers; an event that arrived whole in one read is measured here.
      if (event.data.length > maxEventChars) tooLarge = true;
      else ready.push(event.event === undefined ? { data: event.data } : { event: event.event, data: event.data });
    },
    // Unknown fields and bad `retry` values are ignored, as a browser would; only the size bound stops the stream.
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
  });
  const feed = (text: string) => {
    if (!tooLarge) parser.feed(text);
    if (tooLarge) {
      throw new RelayFailure(502, { message: `The upstream sent an event larger than ${maxEventChars} bytes (the setting hosted.maxEventBytes).`, type: 'upstream_error', code: 'upstream_event_too_large' });
    }
  };
  for await (const text of body) {
    feed(text);
    yield* ready.splice(0);
  }
  feed('\n\n');
  yield* ready.splice(0);
}
