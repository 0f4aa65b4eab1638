/**
 * A stand-in OpenAI-compatible endpoint for tests of cancellation (a fake is fine inside a test):
 * every chat completion streams a word every 20 ms and never ends by itself, so only a client that
 * goes ends it; `closed` counts the requests whose client went.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export class EndlessEndpoint {
  /** Requests whose client went (the stream stopped being read). */
  closed = 0;
  private readonly server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'endless', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      const timer = setInterval(() => res.write(chunk(' word')), 20);
      res.on('close', () => {
        clearInterval(timer);
        this.closed++;
      });
    });
  });

  /** Listens on a free local port; answers the base URL (`…/v1`) to configure as an inference endpoint. */
  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
