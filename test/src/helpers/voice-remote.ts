/**
 * A fake remote OpenAI-shaped audio server (the "remote" a `compatible` voice engine calls; a fake is
 * fine here: it stands for the real product's peer): `POST /audio/speech` answers a WAV of a tone
 * whose length follows the text, `POST /audio/transcriptions` answers what it was sent (`{text}`),
 * `GET /audio/voices`, `GET /models`, `POST /voice/clone` (`{voice_id}`). Every request is kept
 * (method, path, headers, JSON body or form fields with the file's size). `hold()` keeps speech and
 * transcription requests waiting until `release()`, so a test can have many running at once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenVoiceRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or the form's text fields plus `file_size` and `file_name` for multipart. */
  body: Record<string, unknown>;
}

export interface VoiceRemote {
  /** The `/v1`-style root to configure as `voice_remote_base_url`. */
  readonly baseUrl: string;
  readonly seen: SeenVoiceRequest[];
  /** Requests waiting at the hold (speech and transcriptions). */
  readonly waiting: number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** A mono 16-bit PCM WAV of a 440 Hz tone, `seconds` long. */
export function toneWav(seconds: number, sampleRate = 16_000): Buffer {
  const frames = Math.max(1, Math.round(seconds * sampleRate));
  const data = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate)), i * 2);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(36 + data.length, 4);
  head.write('WAVEfmt ', 8, 'ascii');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(sampleRate, 24);
  head.writeUInt32LE(sampleRate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write('data', 36, 'ascii');
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The form's fields (the file as `file_size` and `file_name`), parsed by the platform's own multipart reader. */
async function formFields(raw: Buffer, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') out[name] = value;
    else {
      out[`${name}_size`] = value.size;
      out[`${name}_name`] = value.name;
    }
  }
  return out;
}

export async function startVoiceRemote(options: { apiKey?: string } = {}): Promise<VoiceRemote> {
  const seen: SeenVoiceRequest[] = [];
  let held = false;
  let waiters: Array<() => void> = [];
  const gate = () => (held ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve());

  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '/').split('?')[0]!.replace(/^\/v1/, '');
      const type = req.headers['content-type'] ?? '';
      const body = type.startsWith('multipart/') ? await formFields(raw, type) : raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      seen.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return json(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
      if (req.method === 'POST' && path === '/audio/speech') {
        await gate();
        const text = String(body.input ?? '');
        if (!text) return json(400, { error: { message: 'input is required', type: 'invalid_request_error' } });
        res.writeHead(200, { 'content-type': 'audio/wav' });
        return res.end(toneWav(Math.min(2, 0.05 * text.length)));
      }
      if (req.method === 'POST' && path === '/audio/transcriptions') {
        await gate();
        return json(200, { text: `remote heard ${String(body.file_size)} bytes in ${String(body.language ?? 'no language')}` });
      }
      if (req.method === 'GET' && (path === '/audio/voices' || path === '/voices')) return json(200, { voices: [{ id: 'remote-nova', name: 'Remote Nova' }, { id: 'remote-onyx', name: 'Remote Onyx' }] });
      if (req.method === 'GET' && path === '/models') return json(200, { object: 'list', data: [{ id: 'remote-tts-1', object: 'model' }, { id: 'remote-whisper', object: 'model', type: 'stt' }] });
      if (req.method === 'POST' && path === '/voice/clone') return json(200, { voice_id: `remote-clone-${seen.length}` });
      return json(404, { error: { message: `No route ${req.method} ${path}`, type: 'invalid_request_error' } });
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const release = () => {
    held = false;
    const all = waiters;
    waiters = [];
    for (const w of all) w();
  };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    get waiting() {
      return waiters.length;
    },
    hold() {
      held = true;
    },
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
