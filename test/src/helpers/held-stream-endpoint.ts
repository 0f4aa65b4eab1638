/**
 * A stand-in OpenAI-compatible endpoint for tests of live streams across processes (a fake is fine
 * inside a test): a chat completion streams `Hello` at once, then holds ` world` and the end until the
 * test calls `release()`, so a test can act while a generation is mid-call.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'slow', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

export class HeldStreamEndpoint {
  /** Resolves once the first chunk has been sent. */
  readonly firstChunk: Promise<void>;
  private firstChunkSent: () => void = () => {};
  private releaseRest: () => void = () => {};
  private readonly released = new Promise<void>((r) => (this.releaseRest = r));
  private readonly server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('Hello'));
      this.firstChunkSent();
      void this.released.then(() => res.end(`${chunk(' world', 'stop')}data: [DONE]\n\n`));
    });
  });

  constructor() {
    this.firstChunk = new Promise<void>((r) => (this.firstChunkSent = r));
  }

  /** Sends the rest of every held stream. */
  release(): void {
    this.releaseRest();
  }

  /** Listens on a free local port; answers the base URL (`…/v1`) to configure as an inference endpoint. */
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
