/**
 * The poster seat, in the benchmark parent (neither server's process nor the sockets child's):
 * `POST <url> {body}` over keep-alive `node:http` connections, either on a schedule of absolute
 * times (a slow request does not shift the ones after it; requests overlap when one is slow) or
 * as fast as a fixed number of requests in flight allows. The body carries the message's index and
 * its send time, taken just before the request is written.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { wallMs } from '../ledger/kit.js';
import { messageBody } from './frame.js';

export interface PostTarget {
  url: string;
  headers: Record<string, string>;
}

export interface PostResult {
  /** Wall-clock ms just before the first request was written. */
  startedAt: number;
  /** Wall-clock ms when the last answer ended. */
  endedAt: number;
  /** Request → answer ended, ms, per message. */
  ackMs: number[];
  failed: number;
  firstError: string | null;
}

export class Poster {
  private readonly agent: http.Agent;
  private readonly url: URL;

  constructor(private readonly target: PostTarget, maxSockets: number) {
    // Idle connections are closed here after 2 s, before the servers' 5 s keep-alive timeout can
    // close one just as a request is written on it (a reset, counted as a failed post).
    this.agent = new http.Agent({ keepAlive: true, maxSockets, timeout: 2_000 });
    this.url = new URL(target.url);
  }

  /** Messages first..first+count-1 at `ratePerSec`. */
  async atRate(first: number, count: number, ratePerSec: number): Promise<PostResult> {
    const result = this.result();
    const intervalMs = 1000 / ratePerSec;
    const pending: Array<Promise<void>> = [];
    const start = performance.now() + intervalMs;
    for (let i = 0; i < count; i++) {
      const wait = start + i * intervalMs - performance.now();
      if (wait > 0) await sleep(wait);
      pending.push(this.postOne(first + i, result));
    }
    await Promise.all(pending);
    result.endedAt = wallMs();
    return result;
  }

  /** Messages first..first+count-1 with `concurrency` requests in flight until all are answered. */
  async burst(first: number, count: number, concurrency: number): Promise<PostResult> {
    const result = this.result();
    let next = 0;
    const worker = async () => {
      while (next < count) await this.postOne(first + next++, result);
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    result.endedAt = wallMs();
    return result;
  }

  close(): void {
    this.agent.destroy();
  }

  private result(): PostResult {
    return { startedAt: wallMs(), endedAt: Number.NaN, ackMs: [], failed: 0, firstError: null };
  }

  private postOne(index: number, result: PostResult): Promise<void> {
    return new Promise((resolve) => {
      const t0 = performance.now();
      const payload = JSON.stringify({ body: messageBody(index, wallMs()) });
      const fail = (why: string) => {
        result.failed++;
        result.firstError ??= why;
        resolve();
      };
      const req = http.request(this.url, {
        method: 'POST',
        agent: this.agent,
        headers: { ...this.target.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) return fail(`POST answered ${res.statusCode}: ${text.slice(0, 200)}`);
          result.ackMs.push(performance.now() - t0);
          resolve();
        });
        res.on('error', (err) => fail(`answer error: ${err.message}`));
      });
      req.on('error', (err) => fail(`request error: ${err.message}`));
      req.end(payload);
    });
  }
}
