/**
 * The client of the kernel child: streamed chat completions (stamping each SSE chunk as it
 * arrives), embeddings and health probes, over keep-alive connections of plain `node:http` so the
 * client adds as little as possible to what is measured.
 */
import http from 'node:http';
import { DeltaClock, type GenerationSample } from './timing.js';

export class KernelClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  constructor(private readonly port: number, private readonly token: string) {}

  /** `POST /v1/chat/completions` with `stream: true` and usage in the last chunk. */
  streamChat(model: string, prompt: string, maxTokens: number): Promise<GenerationSample> {
    const body = JSON.stringify({
      model,
      messages: [{ role: 'user', content: prompt }],
      max_tokens: maxTokens,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
    });
    return new Promise((resolve, reject) => {
      const clock = new DeltaClock();
      const req = this.request('POST', '/v1/chat/completions', body, (res) => {
        if (res.statusCode !== 200) return failWithBody(res, '/v1/chat/completions', reject);
        res.setEncoding('utf8');
        let buffer = '';
        let tokens: number | null = null;
        let failure: Error | null = null;
        res.on('data', (data: string) => {
          const at = performance.now();
          buffer += data;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            for (const line of event.split('\n')) {
              if (!line.startsWith('data: ')) continue;
              const payload = line.slice(6);
              if (payload === '[DONE]') continue;
              const chunk = JSON.parse(payload) as ChatChunk;
              if (chunk.error) failure = new Error(`stream error: ${JSON.stringify(chunk.error)}`);
              const content = chunk.choices?.[0]?.delta?.content;
              if (content) clock.delta(content, at);
              if (chunk.usage) tokens = chunk.usage.completion_tokens;
            }
          }
        });
        res.on('end', () => {
          const at = performance.now();
          if (failure) return reject(failure);
          if (tokens === null) return reject(new Error('the stream ended without a usage chunk.'));
          try {
            resolve(clock.finish(tokens, at));
          } catch (err) {
            reject(err as Error);
          }
        });
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('the stream was cut off before its end.'));
        });
      });
      req.on('error', reject);
    });
  }

  /**
   * `POST /v1/embeddings`; resolves with the number of vectors once the body is parsed (and, for
   * base64, each vector decoded to a Float32Array, as the openai SDK does).
   */
  embed(model: string, inputs: string[], format: 'float' | 'base64' = 'float'): Promise<number> {
    const body = JSON.stringify(format === 'float' ? { model, input: inputs } : { model, input: inputs, encoding_format: 'base64' });
    return new Promise((resolve, reject) => {
      const req = this.request('POST', '/v1/embeddings', body, (res) => {
        if (res.statusCode !== 200) return failWithBody(res, '/v1/embeddings', reject);
        readText(res).then((text) => {
          const { data } = JSON.parse(text) as { data: Array<{ embedding: number[] | string }> };
          const vectors = data.map((d) => (typeof d.embedding === 'string' ? decodeBase64Floats(d.embedding) : d.embedding));
          resolve(vectors.length);
        }, reject);
      });
      req.on('error', reject);
    });
  }

  /** `GET /api/health`; resolves with the round-trip time in milliseconds. */
  health(agent: http.Agent): Promise<number> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const req = http.request({ host: '127.0.0.1', port: this.port, path: '/api/health', method: 'GET', agent }, (res) => {
        readText(res).then(() => {
          if (res.statusCode !== 200) reject(new Error(`/api/health answered ${res.statusCode}`));
          else resolve(performance.now() - started);
        }, reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private request(method: string, path: string, body: string, onResponse: (res: http.IncomingMessage) => void): http.ClientRequest {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: this.port,
        path,
        method,
        agent: this.agent,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      onResponse,
    );
    req.end(body);
    return req;
  }
}

interface ChatChunk {
  choices?: Array<{ delta?: { content?: string } }>;
  usage?: { completion_tokens: number };
  error?: unknown;
}

function decodeBase64Floats(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

function readText(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (b: Buffer) => parts.push(b));
    res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    res.on('error', reject);
  });
}

function failWithBody(res: http.IncomingMessage, path: string, reject: (err: Error) => void): void {
  readText(res).then(
    (text) => reject(new Error(`${path} answered ${res.statusCode}: ${text.slice(0, 500)}`)),
    reject,
  );
}
