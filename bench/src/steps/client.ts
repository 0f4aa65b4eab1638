/**
 * The parent's HTTP client for the kernel child: keep-alive `node:http` (cheaper per request than
 * fetch, so the tight polling loop adds as little as it can to what it measures). bench/peers drives
 * the other engines with it too (an empty token sends no authorization header).
 */
import http from 'node:http';

export class KernelHttp {
  private readonly agent: http.Agent;

  /** `maxSockets`: connections kept to the server (one per concurrent client when driving load). */
  constructor(private readonly port: number, private readonly token: string, maxSockets = 4) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  async json<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const { status, text } = await this.send(method, path, body, headers);
    if (status < 200 || status >= 300) throw new Error(`${method} ${path} answered ${status}: ${text}`);
    return JSON.parse(text) as T;
  }

  /** One request; answers the status and body whatever the status. */
  async send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: this.port, method, path, agent: this.agent, headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
        ...headers,
      } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Reads an SSE stream until its `done` event; resolves with the event names seen, in order. */
  untilDone(path: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: this.port, path, agent: this.agent, headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${path} answered ${res.statusCode}`));
          return;
        }
        const events: string[] = [];
        let buffer = '';
        let settled = false;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
            const event = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const name = /^event: (.*)$/m.exec(event)?.[1];
            if (!name) continue;
            events.push(name);
            if (name === 'done' && !settled) {
              settled = true;
              resolve(events);
            }
          }
        });
        res.on('end', () => (settled ? undefined : reject(new Error(`${path} ended without done (${events.join(',')})`))));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
