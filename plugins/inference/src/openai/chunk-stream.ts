/**
 * OpenAI's streaming format over SSE: one `data: <json>` per chunk and a final `data: [DONE]`.
 * The stream ends (and generation is aborted through its signal) when the client goes away.
 */
import { encodeSse, openSse, type RouteContext, type SseStream } from '@keel/plugin-sdk';

type KoaContext = RouteContext<unknown, unknown, unknown>['koa'];

const DONE = encodeSse({ data: '[DONE]' });

export class ChunkStream {
  private readonly sse: SseStream;

  constructor(koa: KoaContext, requestSignal: AbortSignal) {
    this.sse = openSse(koa, { signal: requestSignal, heartbeatMs: 15_000 });
  }

  /** Aborts when the client disconnects: pass it to the generation. */
  get signal(): AbortSignal {
    return this.sse.signal;
  }

  send(chunk: unknown): void {
    this.sse.send({ data: chunk });
  }

  /** An error after the headers went out: sent as an error chunk, as OpenAI does. */
  fail(error: { message: string; type: string; code: string | null; param: string | null }): void {
    this.sse.send({ data: { error } });
  }

  end(): void {
    this.sse.send(DONE);
    this.sse.close();
  }
}
