/**
 * A small fake OpenAI-shaped audio server for the voice library's tests (a fake is fine inside a test:
 * it is the "remote" the real product calls). Real HTTP on 127.0.0.1: `POST /v1/audio/speech` answers
 * a real WAV (or raw s16le PCM) whose length follows the input, `POST /v1/audio/transcriptions` parses
 * the multipart upload with busboy and answers `{text}`, `GET /v1/audio/voices` and `GET /v1/models`
 * answer configurable shapes, `POST /v1/voice/clone` answers a voice id. Faults are injected per path.
 * Every request is kept (headers, JSON body or multipart fields and file) for assertions.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';
import { encodeWaveFromFloat32Channels, SampleFormat } from '@echogarden/wave-codec';

export type Fault =
  /** Answers this status with an OpenAI-shaped error carrying `message`. */
  | { status: number; message: string }
  /** Never answers (until the client goes). */
  | { hang: true }
  /** Streams `bytes` bytes of audio without a content-length (a hostile remote). */
  | { huge: number }
  /** A 200 with an empty body. */
  | { empty: true }
  /** A 200 with this raw body. */
  | { raw: string; contentType?: string };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  json?: Record<string, unknown>;
  fields?: Record<string, string>;
  file?: { field: string; filename: string; mimeType: string; bytes: Buffer };
}

export interface FakeAudioServerOptions {
  /** When set, every request needs `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Sample rate of the speech answered (default 16 000). */
  sampleRate?: number;
  /** Seconds of audio per input character (default 0.01). */
  secondsPerChar?: number;
}

export class FakeAudioServer {
  readonly requests: RecordedRequest[] = [];
  /** What `/audio/voices` answers (any JSON). */
  voicesAnswer: unknown = { voices: [{ voice_id: 'ember', name: 'Ember' }, 'slate'] };
  /** Whether `/audio/voices` exists (false: 404, so the library tries `/voices`). */
  voicesPathAvailable = true;
  modelsAnswer: unknown = { object: 'list', data: [{ id: 'fake-tts-1' }, { id: 'fake-whisper' }, { id: 'chat-model' }] };
  /** What `/audio/transcriptions` answers as `text` (default: a sentence naming the bytes received). */
  transcript: string | undefined;
  cloneAnswer: unknown = { voice_id: 'remote-clone-1' };
  /** Faults by path (`/audio/speech`, ...), applied to every request of that path until deleted. */
  readonly faults = new Map<string, Fault>();
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();

  constructor(private readonly options: FakeAudioServerOptions = {}) {}

  /** Starts listening; answers the base URL (`http://127.0.0.1:<port>/v1`). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      this.open.add(res);
      res.on('close', () => this.open.delete(res));
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) json(res, 500, { error: { message: String(error) } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.baseUrl;
  }

  get baseUrl(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}/v1`;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Requests made to one path. */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The speech a request for `input` answers: a 220 Hz tone, `secondsPerChar` per character. */
  speechFor(input: string): Float32Array {
    const rate = this.options.sampleRate ?? 16_000;
    const frames = Math.max(1, Math.round(input.length * (this.options.secondsPerChar ?? 0.01) * rate));
    const samples = new Float32Array(frames);
    for (let i = 0; i < frames; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * 220 * i) / rate);
    return samples;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/v1/, '');
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers };
    this.requests.push(recorded);
    if (this.options.apiKey && req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      await drain(req);
      json(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    if ((req.headers['content-type'] ?? '').startsWith('multipart/form-data')) await this.readMultipart(req, recorded);
    else {
      const body = await drain(req);
      if (body.length > 0) recorded.json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    }
    const fault = this.faults.get(path);
    if (fault) {
      if ('hang' in fault) return;
      if ('status' in fault) return json(res, fault.status, { error: { message: fault.message, type: 'invalid_request_error' } });
      if ('empty' in fault) {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': '0' });
        res.end();
        return;
      }
      if ('raw' in fault) {
        res.writeHead(200, { 'content-type': fault.contentType ?? 'application/json' });
        res.end(fault.raw);
        return;
      }
      // huge: chunked, no content-length, until done or the client hangs up.
      res.writeHead(200, { 'content-type': 'audio/wav' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = (): void => {
        while (sent < fault.huge && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    if (req.method === 'POST' && path === '/audio/speech') return this.speech(recorded, res);
    if (req.method === 'POST' && path === '/audio/transcriptions') {
      const size = recorded.file?.bytes.length ?? 0;
      return json(res, 200, { text: this.transcript ?? `received ${size} bytes` });
    }
    if (req.method === 'GET' && path === '/audio/voices' && this.voicesPathAvailable) return json(res, 200, this.voicesAnswer);
    if (req.method === 'GET' && path === '/voices') return json(res, 200, this.voicesAnswer);
    if (req.method === 'GET' && path === '/models') return json(res, 200, this.modelsAnswer);
    if (req.method === 'POST' && path === '/voice/clone') return json(res, 200, this.cloneAnswer);
    json(res, 404, { error: { message: `No route ${req.method} ${path}` } });
  }

  private speech(recorded: RecordedRequest, res: ServerResponse): void {
    const body = recorded.json ?? {};
    const input = typeof body.input === 'string' ? body.input : '';
    if (input === '') return json(res, 400, { error: { message: 'input is required' } });
    const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
    const samples = this.speechFor(input);
    const rate = this.options.sampleRate ?? 16_000;
    if (format === 'wav') {
      const wav = Buffer.from(encodeWaveFromFloat32Channels([samples], rate, 16, SampleFormat.PCM));
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(wav.length) });
      res.end(wav);
      return;
    }
    if (format === 'pcm') {
      const pcm = Buffer.alloc(samples.length * 2);
      for (let i = 0; i < samples.length; i++) pcm.writeInt16LE(Math.round(samples[i]! * 32767), i * 2);
      res.writeHead(200, { 'content-type': 'audio/pcm' });
      res.end(pcm);
      return;
    }
    // Other formats: bytes tagged with the format name (the library passes them through untouched).
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(Buffer.from(`FAKE-${format.toUpperCase()}:${input}`));
  }

  private readMultipart(req: IncomingMessage, recorded: RecordedRequest): Promise<void> {
    recorded.fields = {};
    return new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: req.headers });
      parser.on('field', (name, value) => (recorded.fields![name] = value));
      parser.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => (recorded.file = { field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }));
      });
      parser.on('close', resolve);
      parser.on('error', reject);
      req.pipe(parser);
    });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}

async function drain(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
