/**
 * A local HTTP server for model-download tests: serves files from memory with byte ranges (Range,
 * If-Range against its ETag, 206/416), and misbehaves on demand: drop the connection after some
 * bytes, hold a response after some bytes until released, or answer without Content-Length.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ServedFile {
  body: Buffer;
  contentType?: string;
  /** Send without Content-Length (chunked), so the size is unknown until the end. */
  chunked?: boolean;
}

export interface SeenRequest {
  path: string;
  range: string | null;
  ifRange: string | null;
}

const CHUNK = 16 * 1024;

export class ModelFileServer {
  readonly files = new Map<string, ServedFile>();
  readonly requests: SeenRequest[] = [];
  /** path → the next `times` responses of it close the connection after `afterBytes` body bytes. */
  readonly drops = new Map<string, { afterBytes: number; times: number }>();
  /** path → responses starting below `atByte` stop there until `release(path)`. */
  private readonly holds = new Map<string, { atByte: number; released: Promise<void>; release: () => void }>();
  private readonly sockets = new Set<Socket>();
  private server: http.Server | null = null;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const hold of this.holds.values()) hold.release();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  hold(path: string, atByte: number): void {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.holds.set(path, { atByte, released, release });
  }

  release(path: string): void {
    this.holds.get(path)?.release();
    this.holds.delete(path);
  }

  requestsFor(path: string): SeenRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const seen = { path, range: header(req, 'range'), ifRange: header(req, 'if-range') };
    this.requests.push(seen);
    const file = this.files.get(path);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const etag = `"${createHash('sha1').update(file.body).digest('hex')}"`;
    const size = file.body.length;
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(seen.range ?? '');
    const rangeApplies = m && (seen.ifRange === null || seen.ifRange === etag);
    const headers: Record<string, string | number> = { 'content-type': file.contentType ?? 'application/octet-stream', etag, 'accept-ranges': 'bytes' };
    if (rangeApplies) {
      start = Number(m[1]);
      if (start >= size) {
        res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
        return;
      }
      headers['content-range'] = `bytes ${start}-${size - 1}/${size}`;
    }
    if (!file.chunked) headers['content-length'] = size - start;
    res.writeHead(rangeApplies ? 206 : 200, headers);

    const drop = this.drops.get(path);
    const dropAt = drop && drop.times > 0 ? start + drop.afterBytes : Infinity;
    if (drop && drop.times > 0) drop.times -= 1;
    const hold = this.holds.get(path);
    let at = start;
    while (at < size) {
      if (hold && at < hold.atByte && at + CHUNK >= hold.atByte) {
        await write(res, file.body.subarray(at, hold.atByte));
        at = hold.atByte;
        await hold.released;
        if (res.destroyed) return;
        continue;
      }
      const end = Math.min(size, at + CHUNK, dropAt);
      await write(res, file.body.subarray(at, end));
      at = end;
      if (at >= dropAt) {
        // Cut the connection mid-body: the bytes written so far still arrive (FIN after them), the rest never does.
        res.socket?.end();
        return;
      }
      if (res.destroyed) return;
    }
    res.end();
  }
}

function header(req: http.IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === 'string' ? value : null;
}

function write(res: http.ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed || chunk.length === 0) return resolve();
    if (res.write(chunk)) return resolve();
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
