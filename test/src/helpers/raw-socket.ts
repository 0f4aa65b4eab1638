/**
 * A WebSocket client over a bare TCP socket, to send what a well-behaved library never would:
 * frames with invalid UTF-8, reserved bits set, or over the server's size limit, and a peer that
 * never answers the server's close frame. It reads the upgrade answer (status line, headers, body)
 * and the server's frames (text, close code).
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';

export interface UpgradeAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body of a refusal (empty after a 101). */
  body: string;
}

export interface ServerFrame {
  opcode: number;
  payload: Buffer;
}

export const OPCODE = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** One client frame (masked, as a client's must be). */
export function clientFrame(opcode: number, payload: Buffer | string, options: { rsv1?: boolean; fin?: boolean } = {}): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const first = ((options.fin ?? true) ? 0x80 : 0) | (options.rsv1 ? 0x40 : 0) | opcode;
  let header: Buffer;
  if (data.length < 126) {
    header = Buffer.from([first, 0x80 | data.length]);
  } else if (data.length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(data.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(data.length), 2);
  }
  const mask = randomBytes(4);
  const masked = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) masked[i] = data[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

export class RawSocket {
  readonly frames: ServerFrame[] = [];
  /** Set once the TCP connection has ended. */
  ended = false;
  /** When false, close frames from the server are not answered (a peer that never finishes the close handshake). */
  answerClose = true;
  private buffer = Buffer.alloc(0);
  private answer: UpgradeAnswer | null = null;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.ended = true;
      if (!this.answer) this.parseAnswer(true);
      this.wake();
    });
  }

  /**
   * Sends an upgrade request for `path` (and `extra` bytes right behind it, before any answer) and
   * resolves with the server's answer.
   */
  static async open(port: number, path: string, headers: Record<string, string> = {}, extra?: Buffer): Promise<{ raw: RawSocket; answer: UpgradeAnswer }> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const raw = new RawSocket(socket);
    const lines = [
      `GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Upgrade: websocket', 'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), extra ?? Buffer.alloc(0)]));
    await raw.until(() => raw.answer !== null, 'the upgrade answer');
    return { raw, answer: raw.answer! };
  }

  send(frame: Buffer): void {
    this.socket.write(frame);
  }

  sendText(text: string): void {
    this.send(clientFrame(OPCODE.text, text));
  }

  /** Text frames received, parsed as JSON. */
  json<T = Record<string, unknown>>(): T[] {
    return this.frames.filter((f) => f.opcode === OPCODE.text).map((f) => JSON.parse(f.payload.toString('utf8')) as T);
  }

  /** The close code the server sent, or null. */
  get closeCode(): number | null {
    const close = this.frames.find((f) => f.opcode === OPCODE.close);
    return close && close.payload.length >= 2 ? close.payload.readUInt16BE(0) : null;
  }

  async until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private parse(): void {
    if (!this.answer) {
      if (!this.parseAnswer(false)) return;
    }
    while (this.buffer.length >= 2) {
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) return;
      const payload = this.buffer.subarray(offset, offset + length);
      this.buffer = this.buffer.subarray(offset + length);
      this.frames.push({ opcode, payload });
      if (opcode === OPCODE.close && this.answerClose) this.send(clientFrame(OPCODE.close, payload.subarray(0, 2)));
    }
  }

  /** Reads the status line and headers (and, for a refusal, the body); true once the answer is complete. */
  private parseAnswer(atEnd: boolean): boolean {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) {
      if (atEnd) this.answer = { status: 0, headers: {}, body: this.buffer.toString('utf8') };
      return false;
    }
    const [statusLine, ...headerLines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
    if (status === 101) {
      this.buffer = this.buffer.subarray(end + 4);
      this.answer = { status, headers, body: '' };
      return true;
    }
    const length = Number(headers['content-length'] ?? NaN);
    const body = this.buffer.subarray(end + 4);
    if (Number.isFinite(length) ? body.length < length : !atEnd) return false;
    this.answer = { status, headers, body: body.toString('utf8') };
    this.buffer = Buffer.alloc(0);
    return true;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
