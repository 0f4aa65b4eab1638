/**
 * A scripted, fault-injecting OpenAI-shaped upstream for the relay's tests (a fake is fine inside a
 * test). It speaks the upstream protocol the relay expects (plugins/relay/README.md, "Upstream
 * protocol"): `GET /models`, `POST /chat/completions` and `POST /completions` (always asked to
 * stream by the relay; answered as SSE chunks ending `data: [DONE]`, or JSON when `stream` is not
 * true), and `GET /usage` (the usage report of the reference §1.5 upstream shape). Each account is
 * an API key: its own catalog, usage report and script of replies (a reply is taken per generation
 * request, in order; the last one repeats). Every request is kept with its headers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What one generation request gets. */
export type UpstreamReply =
  /** Content in `chunks` deltas, then a finish chunk, a usage chunk and `[DONE]`. */
  | { text: string; chunks?: number; finish?: string; usage?: { prompt_tokens: number; completion_tokens: number } }
  /** A tool call instead of text (chat only). */
  | { toolCall: { id: string; name: string; arguments: string } }
  /** An HTTP error before any byte of a stream: the status with `{error}` (OpenAI shape). */
  | { status: number; error: Record<string, unknown>; headers?: Record<string, string> }
  /** A failure event inside the stream after `before` content deltas were sent (0: before any content, only the role chunk). */
  | { streamError: Record<string, unknown>; before: number; text?: string }
  /** The stream closes after `before` content deltas, without finish or `[DONE]`. */
  | { drop: true; before: number; text?: string }
  /** Waits `ms` before the first byte, then answers `then`. */
  | { delayMs: number; then: UpstreamReply }
  /** Never answers (until the client goes). */
  | { hang: true }
  /** Sends `before` content deltas, then holds the stream open without another byte (until the client goes). */
  | { stall: true; before: number; text?: string }
  /** A stream of these SSE events written as they are (each followed by a blank line), then the end. */
  | { events: string[] };

export interface UsageWindow {
  used_percent: number | null;
  limit_window_seconds: number | null;
  reset_after_seconds?: number | null;
  reset_at?: number | null;
}

/** The usage report an account answers on `GET /usage` (reference §1.5, upstream side). */
export interface UsageReport {
  email?: string;
  plan_type?: string;
  account_id?: string;
  rate_limit?: { allowed?: boolean | null; limit_reached?: boolean | null; primary_window?: UsageWindow | null; secondary_window?: UsageWindow | null };
  rate_limit_reached_type?: string | null;
  [field: string]: unknown;
}

export interface SeenUpstreamRequest {
  account: string;
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

interface UpstreamAccountState {
  models: string[];
  /** More fields of a catalog entry, by model id (`display_name`, `description`, ...). */
  modelInfo: Map<string, Record<string, unknown>>;
  /** `GET /models` fails with this status and error while set. */
  modelsFailure: { status: number; error: Record<string, unknown> } | null;
  /** `GET /models` answers after this many milliseconds. */
  modelsDelayMs: number;
  usage: UsageReport | { status: number; error: Record<string, unknown> } | null;
  replies: UpstreamReply[];
}

export class RelayUpstream {
  readonly requests: SeenUpstreamRequest[] = [];
  /** Streams whose client went away before the end (the relay must close them, reference §8 item 28). */
  closedEarly = 0;
  /** TCP connections accepted (keep-alive reuse shows as fewer connections than calls). */
  connections = 0;
  /** Usage reports served (`GET /usage`), by account. */
  readonly usageCalls = new Map<string, number>();
  /** Milliseconds an account's usage report waits before it is answered (a slow probe), by API key. */
  readonly usageDelayMs = new Map<string, number>();
  private readonly accounts = new Map<string, UpstreamAccountState>();
  private server: Server | undefined;
  url = '';

  /** Adds (or resets) an account: its API key, catalog and first script. */
  account(apiKey: string, options: { models?: string[]; usage?: UsageReport | null; replies?: UpstreamReply[] } = {}): this {
    this.accounts.set(apiKey, { models: options.models ?? ['gpt-test'], modelInfo: new Map(), modelsFailure: null, modelsDelayMs: 0, usage: options.usage ?? null, replies: [...(options.replies ?? [{ text: 'hello from upstream' }])] });
    return this;
  }

  /** Replaces the replies an account gives next. */
  script(apiKey: string, replies: UpstreamReply[]): void {
    this.state(apiKey).replies = [...replies];
  }

  /** Replaces the usage report (or makes it fail with a status). */
  usage(apiKey: string, report: UsageAccountAnswer): void {
    this.state(apiKey).usage = report;
  }

  models(apiKey: string, models: string[]): void {
    this.state(apiKey).models = models;
  }

  /** Adds fields to one entry of an account's catalog. */
  describeModel(apiKey: string, id: string, fields: Record<string, unknown>): void {
    this.state(apiKey).modelInfo.set(id, fields);
  }

  /** Makes `GET /models` of an account fail with a status (null: answer again), or answer late. */
  modelsAnswer(apiKey: string, options: { failure?: { status: number; error: Record<string, unknown> } | null; delayMs?: number }): void {
    const state = this.state(apiKey);
    if (options.failure !== undefined) state.modelsFailure = options.failure;
    if (options.delayMs !== undefined) state.modelsDelayMs = options.delayMs;
  }

  /** `GET /models` requests seen, for one account or all. */
  catalogReads(apiKey?: string): number {
    return this.requests.filter((r) => r.method === 'GET' && r.path === '/models' && (apiKey === undefined || r.account === apiKey)).length;
  }

  generations(apiKey?: string): SeenUpstreamRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && (apiKey === undefined || r.account === apiKey));
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }

  private state(apiKey: string): UpstreamAccountState {
    const state = this.accounts.get(apiKey);
    if (!state) throw new Error(`no upstream account with key ${apiKey}`);
    return state;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const account = this.accounts.get(key);
      const path = new URL(req.url ?? '/', 'http://x').pathname.replace(/^\/v1/, '');
      let body: Record<string, unknown>;
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        return json(res, 400, { error: { message: 'bad json', type: 'invalid_request_error', code: null } });
      }
      this.requests.push({ account: key, method: req.method ?? '', path, headers: req.headers, body });
      if (!account) return json(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      if (req.method === 'GET' && path === '/models') {
        const answer = () => {
          if (account.modelsFailure) return json(res, account.modelsFailure.status, { error: account.modelsFailure.error });
          json(res, 200, { object: 'list', data: account.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'upstream', ...account.modelInfo.get(id) })) });
        };
        if (account.modelsDelayMs > 0) setTimeout(answer, account.modelsDelayMs);
        else answer();
        return;
      }
      if (req.method === 'GET' && path === '/usage') {
        this.usageCalls.set(key, (this.usageCalls.get(key) ?? 0) + 1);
        const usage = account.usage;
        const delay = this.usageDelayMs.get(key) ?? 0;
        if (delay > 0) {
          const timer = setTimeout(() => answerUsage(res, usage), delay);
          res.on('close', () => clearTimeout(timer));
          return;
        }
        return answerUsage(res, usage);
      }
      if (req.method === 'POST' && (path === '/chat/completions' || path === '/completions')) {
        const reply = account.replies.length > 1 ? account.replies.shift()! : account.replies[0]!;
        return this.generate(res, reply, path === '/chat/completions' ? 'chat' : 'text', String(body.model ?? ''), body.stream === true);
      }
      json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', code: 'not_found' } });
    });
  }

  private generate(res: ServerResponse, reply: UpstreamReply, kind: 'chat' | 'text', model: string, stream: boolean): void {
    if ('delayMs' in reply) {
      const timer = setTimeout(() => this.generate(res, reply.then, kind, model, stream), reply.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if ('hang' in reply) {
      res.on('close', () => this.closedEarly++);
      return;
    }
    if ('status' in reply) return json(res, reply.status, { error: reply.error }, reply.headers);
    const frame = (delta: Record<string, unknown>, finish: string | null) => `data: ${JSON.stringify(kind === 'chat'
      ? { id: 'up-1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] }
      : { id: 'up-1', object: 'text_completion', created: 1, model, choices: [{ index: 0, text: (delta.content as string | undefined) ?? '', logprobs: null, finish_reason: finish }] })}\n\n`;
    const pieces = (text: string, n: number) => Array.from({ length: n }, (_, i) => text.slice(Math.floor((i * text.length) / n), Math.floor(((i + 1) * text.length) / n)));
    if (!stream) {
      if ('text' in reply && !('drop' in reply) && !('streamError' in reply) && !('stall' in reply)) {
        const usage = { prompt_tokens: reply.usage?.prompt_tokens ?? 5, completion_tokens: reply.usage?.completion_tokens ?? 3 };
        return json(res, 200, kind === 'chat'
          ? { id: 'up-1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: reply.finish ?? 'stop' }], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } }
          : { id: 'up-1', object: 'text_completion', created: 1, model, choices: [{ index: 0, text: reply.text, logprobs: null, finish_reason: reply.finish ?? 'stop' }], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
      }
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.on('close', () => {
      if (!res.writableEnded) this.closedEarly++;
    });
    if ('events' in reply) {
      res.end(reply.events.map((event) => `${event}\n\n`).join(''));
      return;
    }
    if (kind === 'chat') res.write(frame({ role: 'assistant', content: '' }, null));
    if ('toolCall' in reply) {
      res.write(frame({ tool_calls: [{ index: 0, id: reply.toolCall.id, type: 'function', function: { name: reply.toolCall.name, arguments: reply.toolCall.arguments } }] }, null));
      res.end(`${frame({}, 'tool_calls')}data: [DONE]\n\n`);
      return;
    }
    if ('stall' in reply) {
      for (const piece of pieces(reply.text ?? 'partial answer', Math.max(reply.before, 1)).slice(0, reply.before)) res.write(frame({ content: piece }, null));
      return;
    }
    if ('streamError' in reply || 'drop' in reply) {
      for (const piece of pieces(reply.text ?? 'partial answer', Math.max(reply.before, 0)).slice(0, reply.before)) res.write(frame({ content: piece }, null));
      if ('streamError' in reply) res.write(`data: ${JSON.stringify({ error: reply.streamError })}\n\n`);
      res.end();
      return;
    }
    for (const piece of pieces(reply.text, reply.chunks ?? 3)) res.write(frame({ content: piece }, null));
    res.write(frame({}, reply.finish ?? 'stop'));
    const usage = { prompt_tokens: reply.usage?.prompt_tokens ?? 5, completion_tokens: reply.usage?.completion_tokens ?? 3 };
    res.write(`data: ${JSON.stringify({ id: 'up-1', object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: 1, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`);
    res.end('data: [DONE]\n\n');
  }
}

export type UsageAccountAnswer = UsageReport | { status: number; error: Record<string, unknown> } | null;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A usage report with one window of `seconds` at `used` percent (reset in `resetIn` seconds). */
export function usageReport(windows: Array<{ seconds: number; used: number; resetIn?: number }>, extra: Partial<UsageReport> = {}): UsageReport {
  const [primary, secondary] = windows.map((w) => ({ used_percent: w.used, limit_window_seconds: w.seconds, reset_after_seconds: w.resetIn ?? w.seconds, reset_at: Math.floor(Date.now() / 1000) + (w.resetIn ?? w.seconds) }));
  return { plan_type: 'plus', rate_limit: { allowed: true, limit_reached: windows.some((w) => w.used >= 100), primary_window: primary ?? null, secondary_window: secondary ?? null }, ...extra };
}

function answerUsage(res: ServerResponse, usage: UsageAccountAnswer): void {
  if (usage === null) return json(res, 404, { error: { message: 'no usage here', type: 'invalid_request_error', code: null } });
  if ('status' in usage && typeof usage.status === 'number') return json(res, usage.status, { error: usage.error });
  json(res, 200, usage);
}
