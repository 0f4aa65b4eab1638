/**
 * Through the API: `POST /v1/audio/speech` on the kernel child (its own espeak pool), over one
 * keep-alive connection. First audio is the first body byte; total is the last; the audio length
 * is read from the WAV answer.
 */
import http from 'node:http';
import { decodeWaveToFloat32Channels } from '@echogarden/wave-codec';
import type { Timing } from './timing.js';

export class ApiSide {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly port: number, private readonly token: string) {}

  /** `extra` is merged into the JSON body (how a delivery mode is asked for). */
  speak(text: string, extra: Record<string, unknown> = {}): Promise<Timing> {
    const body = JSON.stringify({ model: 'espeak', input: text, voice: 'en-us', response_format: 'wav', ...extra });
    return new Promise((resolve, reject) => {
      const t0 = performance.now();
      let first = Number.NaN;
      const chunks: Buffer[] = [];
      const req = http.request({
        host: '127.0.0.1', port: this.port, method: 'POST', path: '/v1/audio/speech', agent: this.agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${this.token}` },
      }, (res) => {
        res.on('data', (chunk: Buffer) => {
          if (Number.isNaN(first)) first = performance.now() - t0;
          chunks.push(chunk);
        });
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          const bytes = Buffer.concat(chunks);
          if (res.statusCode !== 200) return reject(new Error(`POST /v1/audio/speech answered ${res.statusCode}: ${bytes.toString('utf8').slice(0, 300)}`));
          try {
            const audio = decodeWaveToFloat32Channels(bytes, true, true);
            resolve({ firstAudioMs: first, totalMs, audioS: (audio.audioChannels[0]?.length ?? 0) / audio.sampleRate });
          } catch (err) {
            reject(new Error(`POST /v1/audio/speech answered bytes that are not a WAV file: ${(err as Error).message}`));
          }
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
