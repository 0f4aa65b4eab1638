/**
 * A fake remote OpenAI-shaped audio server (the "remote" a `compatible` or `hosted` voice engine
 * calls; a fake is fine here: it stands for the real product's peer): `POST /audio/speech` answers a
 * WAV of a tone whose length follows the text, `POST /audio/transcriptions` answers what it was sent
 * (`{text}`), `GET /audio/voices` (and `/voices`), `GET /models`, `POST /voice/clone` (`{voice_id}`)
 * and `POST /audio/voices` (hosted custom voices, `{id}`). Every request is kept (method, path,
 * headers, JSON body or form fields with the file's size). `hold()` keeps speech and transcription
 * requests waiting until `release()`, so a test can have many running at once. `faults` switches
 * every route to be slow (answer after `delayMs`, or never: `hang`), to fail (`failStatus`), or to
 * answer an oversized body (`oversizedBytes`); `answers` replaces the default listings.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenVoiceRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The JSON body, or the form's text fields plus `file_size` and `file_name` for multipart. */
  body: Record<string, unknown>;
  /** True once the client went away before the answer was sent (a timed-out probe). */
  abandoned: boolean;
}

export interface VoiceRemoteFaults {
  /** Paths the faults apply to (default: every path). */
  paths?: string[];
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (until the client goes). */
  hang?: boolean;
  /** Answer this HTTP status with an OpenAI-shaped error. */
  failStatus?: number;
  /** Answer a JSON body of about this many bytes. */
  oversizedBytes?: number;
}

export interface VoiceRemoteAnswers {
  models?: unknown;
  voices?: unknown;
  clone?: unknown;
  hostedVoice?: unknown;
}

export interface VoiceRemote {
  /** The `/v1`-style root to configure as `voice_remote_base_url`. */
  readonly baseUrl: string;
  readonly seen: SeenVoiceRequest[];
  /** Requests waiting at the hold (speech and transcriptions). */
  readonly waiting: number;
  /** Requests of `path` seen so far. */
  count(path: string, method?: string): number;
  faults: VoiceRemoteFaults;
  answers: VoiceRemoteAnswers;
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

export const DEFAULT_REMOTE_VOICES = { voices: [{ id: 'remote-nova', name: 'Remote Nova' }, { id: 'remote-onyx', name: 'Remote Onyx' }] };
export const DEFAULT_REMOTE_MODELS = { object: 'list', data: [{ id: 'remote-tts-1', object: 'model' }, { id: 'remote-whisper', object: 'model', type: 'stt' }] };

export async function startVoiceRemote(options: { apiKey?: string; faults?: VoiceRemoteFaults; answers?: VoiceRemoteAnswers } = {}): Promise<VoiceRemote> {
  const seen: SeenVoiceRequest[] = [];
  let held = false;
  let waiters: Array<() => void> = [];
  const gate = () => (held ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve());
  const state = { faults: options.faults ?? {}, answers: options.answers ?? {} };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const path = (req.url ?? '/').split('?')[0]!.replace(/^\/v1/, '');
      const type = req.headers['content-type'] ?? '';
      const body = type.startsWith('multipart/') ? await formFields(raw, type) : raw.length ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      const record: SeenVoiceRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, abandoned: false };
      seen.push(record);
      res.on('close', () => {
        if (!res.writableFinished) record.abandoned = true;
      });
      const json = (status: number, value: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) return json(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error' } });
      const faults = state.faults;
      if (!faults.paths || faults.paths.includes(path)) {
        if (faults.hang) return; // the socket stays open until the client gives up
        if (faults.delayMs) await new Promise((resolve) => setTimeout(resolve, faults.delayMs));
        if (faults.failStatus) return json(faults.failStatus, { error: { message: `remote failure injected on ${path}`, type: 'server_error' } });
        if (faults.oversizedBytes) return json(200, { data: [{ id: 'x'.repeat(faults.oversizedBytes) }] });
      }
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
      if (req.method === 'GET' && (path === '/audio/voices' || path === '/voices')) return json(200, state.answers.voices ?? DEFAULT_REMOTE_VOICES);
      if (req.method === 'GET' && path === '/models') return json(200, state.answers.models ?? DEFAULT_REMOTE_MODELS);
      if (req.method === 'POST' && path === '/voice/clone') return json(200, state.answers.clone ?? { voice_id: `remote-clone-${seen.length}` });
      if (req.method === 'POST' && path === '/audio/voices') return json(200, state.answers.hostedVoice ?? { id: `voice_hosted_${seen.length}`, object: 'audio.voice' });
      return json(404, { error: { message: `No route ${req.method} ${path}`, type: 'invalid_request_error' } });
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const remote: VoiceRemote = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    seen,
    count(path: string, method?: string) {
      return seen.filter((r) => r.path === path && (method === undefined || r.method === method)).length;
    },
    get faults() {
      return state.faults;
    },
    set faults(value: VoiceRemoteFaults) {
      state.faults = value;
    },
    get answers() {
      return state.answers;
    },
    set answers(value: VoiceRemoteAnswers) {
      state.answers = value;
    },
    get waiting() {
      return waiters.length;
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      const all = waiters;
      waiters = [];
      for (const w of all) w();
    },
    async close() {
      this.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return remote;
}
