/**
 * Reads the `data` payloads of a Server-Sent Events body (as OpenAI-compatible servers stream) with
 * `eventsource-parser`: CRLF, CR or LF line ends, comments, `event`/`id`/`retry` fields and
 * multi-line data (joined with `\n`) as the SSE standard has them. An event left open when the body
 * ends is still delivered (some servers omit the last blank line).
 */
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';

/** Thrown when one event (or one unterminated line) grows past `maxEventChars`. */
export class SseEventTooLarge extends Error {
  constructor(readonly maxEventChars: number) {
    super(`an event is over ${maxEventChars} characters`);
  }
}

export async function* sseData(body: ReadableStream<Uint8Array>, maxEventChars: number): AsyncGenerator<string> {
  const ready: string[] = [];
  let failure: ParseError | null = null;
  const parser = createParser({
    maxBufferSize: maxEventChars,
    onEvent: (event: EventSourceMessage) => ready.push(event.data),
    // Unknown fields and bad `retry` values are ignored, as a browser would; only the size bound stops the stream.
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') failure ??= error;
    },
  });
  const decoder = new TextDecoder();
  const feed = (text: string) => {
    parser.feed(text);
    if (failure) throw new SseEventTooLarge(maxEventChars);
  };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
  feed(decoder.decode() + '\n\n');
  yield* ready.splice(0);
}
