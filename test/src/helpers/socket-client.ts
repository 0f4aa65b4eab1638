/** A `ws` client for socket tests: it records every frame (JSON objects as they are) and its close, and waits for conditions with a deadline. */
import type { IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';

export interface Frame {
  type: string;
  [key: string]: unknown;
}

/** How long a test waits for a frame or a close: generous, the machine may be busy. */
export const SOCKET_DEADLINE_MS = 20_000;

export class SocketClient {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: Array<() => void> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(asFrame(data.toString()));
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.wake();
    });
  }

  /** Opens `url` (ws://…) and resolves once the socket is open; rejects when the server refuses it. */
  static async open(url: string, headers: Record<string, string> = {}): Promise<SocketClient> {
    const ws = new WebSocket(url, { headers });
    const client = new SocketClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** The frames received so far of one `type`. */
  ofType(type: string): Frame[] {
    return this.frames.filter((f) => f.type === type);
  }

  /** Waits until `check` holds, woken by each frame and the close; fails naming `what` after `ms`. */
  async until(check: () => boolean, what: string, ms = SOCKET_DEADLINE_MS): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${JSON.stringify(this.frames).slice(0, 800)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Sends `frame` and resolves with the next frame of one of `types` that arrives after it. */
  async reply(frame: unknown, types: string[]): Promise<Frame> {
    const before = this.frames.length;
    this.send(frame);
    const next = () => this.frames.slice(before).find((f) => types.includes(f.type));
    await this.until(() => next() !== undefined, `a ${types.join(' or ')} frame after ${JSON.stringify(frame).slice(0, 200)}`);
    return next()!;
  }

  /** Resolves once the server closed the socket. */
  async closedWith(what = 'the close'): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closed !== null, what);
    return this.closed!;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** A frame as JSON, or `{type: 'text', text}` for one that is not a JSON object. */
function asFrame(text: string): Frame {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Frame;
  } catch {
    // not JSON: kept as text below
  }
  return { type: 'text', text };
}

/** Opens a socket the server must refuse; resolves with the HTTP status, headers and body of its answer to the upgrade. */
export function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => reject(new Error(`${url} opened; a refusal was expected`)));
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
  });
}
