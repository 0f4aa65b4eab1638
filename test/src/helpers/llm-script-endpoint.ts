/**
 * A stand-in OpenAI-compatible endpoint for tests of the `llm_call` and `agent` nodes (a fake is
 * fine inside a test): each model answers its script of replies in order (then keeps its last one),
 * each reply with its own `finish_reason`; a reply `'endless'` behaves as a model that never stops
 * on its own: without `max_tokens` it streams unclosed JSON until the client goes, with `max_tokens`
 * it sends that many one-character "tokens" of it and ends with `finish_reason: "length"`. Every
 * request body is kept. Answers stream (SSE) when the request asks for it, else come as one JSON.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedReply = { content: string; finish_reason?: string } | { status: number; error: string } | 'endless';

export interface SeenRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  max_tokens?: number;
  response_format?: { type: string; json_schema?: { schema?: Record<string, unknown> } };
  stream?: boolean;
  [key: string]: unknown;
}

export class ScriptedLlmEndpoint {
  readonly requests: SeenRequest[] = [];
  /** `GET /models` catalog requests received. */
  catalogRequests = 0;
  /** Requests of an endless reply whose client went (the stream stopped being read). */
  endlessClosed = 0;
  private readonly scripts = new Map<string, ScriptedReply[]>();
  private server: Server | undefined;
  url = '';

  /** The replies `model` gives, in order; the last one is repeated. */
  script(model: string, replies: ScriptedReply[]): void {
    this.scripts.set(model, [...replies]);
  }

  of(model: string): SeenRequest[] {
    return this.requests.filter((r) => r.model === model);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        if (req.method === 'GET') {
          this.catalogRequests++;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', data: [...this.scripts.keys()].map((id) => ({ id, object: 'model' })) }));
          return;
        }
        const parsed = JSON.parse(body || '{}') as SeenRequest;
        const model = String(parsed.model ?? '');
        this.requests.push(parsed);
        const script = this.scripts.get(model) ?? [{ content: '(no script)' }];
        const reply = script.length > 1 ? script.shift()! : script[0]!;
        if (reply === 'endless') return this.endless(res, parsed);
        if ('status' in reply) {
          res.writeHead(reply.status, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: reply.error, type: 'invalid_request_error' } }));
          return;
        }
        this.answer(res, parsed, model, reply.content, reply.finish_reason ?? 'stop');
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => (this.server ? this.server.close(r) : r(undefined)));
  }

  private answer(res: import('node:http').ServerResponse, request: SeenRequest, model: string, content: string, finish: string): void {
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk(model, content, null));
      res.end(`${chunk(model, '', finish)}data: [DONE]\n\n`);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', created: 0, model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }));
  }

  private endless(res: import('node:http').ServerResponse, request: SeenRequest): void {
    const model = request.model;
    if (typeof request.max_tokens === 'number') {
      // A model that stops only at the bound: max_tokens "tokens" of unclosed JSON, then `length`.
      const text = `{"items": [${'"x", '.repeat(Math.ceil(request.max_tokens / 5))}`.slice(0, request.max_tokens);
      return this.answer(res, request, model, text, 'length');
    }
    res.writeHead(200, { 'content-type': request.stream ? 'text/event-stream' : 'application/json' });
    // Without a bound it never ends: unclosed JSON every 20 ms until the client goes.
    const timer = setInterval(() => res.write(request.stream ? chunk(model, '"x", ', null) : ' '), 20);
    if (request.stream) res.write(chunk(model, '{"items": [', null));
    res.on('close', () => {
      clearInterval(timer);
      this.endlessClosed++;
    });
  }
}

function chunk(model: string, content: string, finish: string | null): string {
  return `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
}
