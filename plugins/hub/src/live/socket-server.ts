/**
 * The live socket `GET /ws?token=<seat key>` (reference §3): pushes every new message and tombstone
 * of the seat's channels as `envelope` frames, replays backlog after `subscribe` with `since`
 * cursors, and takes `post`, `presence`, `ack` and `ping` frames. Delivery is at least once;
 * per connection a channel's rows go out in seq order without repeats.
 *
 * The kernel owns the handshake: `authenticate` runs before anything is upgraded, so a missing or
 * unknown key is refused with HTTP 401 and a blocked or retired seat with 403 (the refusal in the
 * hub's `{detail}` shape), as the reference hub's close-before-accept answers. Frame size, protocol
 * errors, the per-account cap and stop (1001) are the kernel's too.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PostMessageBody } from '@keel/hub-client/wire';
import type { WebSocket } from 'ws';
import { admit, bearerCredential, textExceedsJsonDepth, isHttpError, type SocketAdmission, type SocketConnection, type SocketRoute } from '@keel/plugin-sdk';
import type { HubConfig } from '../config.js';
import type { Hub } from '../hub.js';
import type { StoredMessage } from '../records.js';
import { EnvelopeFrames } from './envelope-frames.js';
import type { Presence } from './presence.js';
import { TickWrites, type FrameSink } from './tick-writes.js';
import { encodeTextFrame } from './ws-text-frame.js';

/** Checks a `post` frame's fields against the HTTP post body schema (`@keel/hub-client/wire`). */
export type PostCheck = (fields: unknown) => PostMessageBody;

export class SocketServer {
  private readonly connections = new Set<Connection>();
  private readonly writes = new TickWrites();
  private readonly unsubscribe: () => void;

  constructor(private readonly hub: Hub, private readonly presence: Presence, private readonly checkPost: PostCheck) {
    // One listener for every socket, so the sockets share a message's envelope facts and frames.
    this.unsubscribe = hub.live.subscribe((m) => {
      if (this.connections.size === 0) return;
      const frames = new EnvelopeFrames(hub.envelopes, m, m.retracted_at === null);
      // One read of the channel's members per message, not one lookup per socket.
      const members = hub.db.memberIds(m.channel);
      for (const c of this.connections) if (members.has(c.seat)) c.deliver(m, true, frames);
    });
  }

  /** The socket route the kernel mounts (`/ws` under the hub's prefix). */
  route(): SocketRoute<string> {
    return { path: '/ws', authenticate: (req) => this.authenticate(req), connected: (c) => this.connected(c) };
  }

  /**
   * The seat a key (query `token`, since a browser cannot set headers on a socket, else
   * `Authorization: Bearer`) stands for, checked by the routes' own `seatKey` authenticator; 401/403
   * otherwise. The kernel's socket host throttles the source and counts the 401 as a failed sign-in.
   */
  private async authenticate(req: IncomingMessage): Promise<SocketAdmission<string>> {
    const url = new URL(req.url ?? '/', 'http://hub.invalid');
    const seat = await admit(this.hub.auth.seatKey, url.searchParams.get('token') || bearerCredential(req.headers.authorization), req);
    return { principal: seat.id, account: `hub-seat:${seat.id}` };
  }

  private connected({ ws, socket, principal: seat }: SocketConnection<string>): void {
    const conn = new Connection(this.hub, ws, socket, this.writes, seat, this.hub.config, this.checkPost);
    this.connections.add(conn);
    this.presence.connected(conn.seat);
    ws.on('close', () => {
      this.connections.delete(conn);
      this.presence.disconnected(conn.seat);
    });
    ws.on('message', (data, isBinary) => conn.enqueue(isBinary ? '' : data.toString(), this.presence));
  }

  /** Closes every socket of a seat (hub block imposed while connected). */
  sever(agent: string, code = 4403, reason = 'hub-blocked'): void {
    for (const c of this.connections) if (c.seat === agent) c.ws.close(code, reason);
  }

  /** Stops pushing (the kernel has already closed the sockets with 1001 by the time plugins stop). */
  close(): void {
    this.unsubscribe();
    for (const c of this.connections) c.ws.close(1001, 'hub stopping');
  }
}

class Connection implements FrameSink {
  /** Highest seq sent per channel on this connection. */
  private readonly sent = new Map<string, number>();
  private readonly tombstonesSent = new Set<string>();
  /** Frames handed to the socket and not yet written out (the live queue's measure). */
  private pending = 0;
  /** Frames of this tick, written together at its end (see tick-writes.ts). */
  private held: Buffer[] = [];
  private inbound: Promise<void> = Promise.resolve();

  constructor(
    private readonly hub: Hub,
    readonly ws: WebSocket,
    /** The upgraded TCP socket under `ws`: data frames are written to it directly, whole. */
    private readonly socket: Duplex,
    private readonly writes: TickWrites,
    readonly seat: string,
    private readonly limits: Pick<HubConfig, 'socketQueueFrames' | 'socketFrameMaxDepth'>,
    private readonly checkPost: PostCheck,
  ) {}

  /** Sends `m` if this seat should get it now; `frames` builds (and shares) the encoded envelope. */
  deliver(m: StoredMessage, live: boolean, frames: EnvelopeFrames): void {
    // The caller has checked that the seat is a member of m's channel.
    const retracted = m.retracted_at !== null;
    if (retracted) {
      if (this.tombstonesSent.has(m.id)) return;
      this.tombstonesSent.add(m.id);
    } else {
      if (m.sender === this.seat || m.seq <= (this.sent.get(m.channel) ?? 0)) return;
      // A full queue drops live frames; the client sees the seq gap and reconnects with `since`.
      if (live && this.pending >= this.limits.socketQueueFrames) return;
      this.sent.set(m.channel, m.seq);
    }
    this.sendFrame(frames.for(this.seat));
  }

  private send(frame: unknown): void {
    this.sendFrame(encodeTextFrame(Buffer.from(JSON.stringify(frame))));
  }

  /** A complete text frame (possibly shared by several sockets), written at the end of the tick. */
  private sendFrame(frame: Buffer): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    if (this.held.length === 0) this.writes.schedule(this);
    this.held.push(frame);
    this.pending++;
  }

  flush(): void {
    const frames = this.held;
    this.held = [];
    // A socket closing meanwhile takes no more data frames (its close frame may already be out).
    if (frames.length === 0 || this.ws.readyState !== this.ws.OPEN) {
      this.pending -= frames.length;
      return;
    }
    this.socket.write(frames.length === 1 ? frames[0] : Buffer.concat(frames), (err) => {
      this.pending -= frames.length;
      if (err) this.ws.close(1011, 'delivery failed');
    });
  }

  /** Frames are handled one at a time, in arrival order (a post then an ack must not swap). */
  enqueue(text: string, presence: Presence): void {
    this.inbound = this.inbound.then(() => this.receive(text, presence)).catch((err: unknown) => this.hub.log.error('socket frame failed', { err }));
  }

  private async receive(text: string, presence: Presence): Promise<void> {
    // Parsing copes with deep nesting; what walks the frame afterwards (posting, hashing) would not.
    if (textExceedsJsonDepth(text, this.limits.socketFrameMaxDepth)) {
      return this.send({ type: 'error', detail: `malformed frame: JSON nested deeper than ${this.limits.socketFrameMaxDepth} levels`, status: 400 });
    }
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(text) as Record<string, unknown>;
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) throw new Error('not an object');
    } catch {
      return this.send({ type: 'error', detail: 'malformed frame: not valid JSON' });
    }
    const agent = this.hub.agents.live(this.seat);
    const refusal = agent ? this.hub.auth.refusalFor(agent) : 'this identity no longer exists';
    if (!agent || refusal) return this.send({ type: 'error', detail: refusal, status: 403 });
    try {
      switch (frame.type) {
        case 'subscribe': return this.subscribe(frame);
        case 'post': {
          if (typeof frame.channel !== 'string') return this.send({ type: 'error', detail: 'malformed frame: post needs channel' });
          // body is required as on the HTTP route (seed §2.5); '' is a body.
          if (typeof frame.body !== 'string') return this.send({ type: 'error', detail: 'malformed frame: post needs body (a string; empty when the post carries only attachments or data)' });
          const c = this.hub.channels.requireMember(frame.channel, agent.id);
          const { type: _t, channel: _c, ...fields } = frame;
          let args: PostMessageBody;
          try {
            args = this.checkPost(fields);
          } catch (err) {
            // The HTTP route answers a schema violation 422; the frame says so with the validator's sentence.
            return this.send({ type: 'error', detail: isHttpError(err) ? err.message : 'malformed frame: post', status: 422 });
          }
          const m = await this.hub.poster.post(c, agent, args);
          return this.send({ type: 'posted', id: m.id, seq: m.seq });
        }
        case 'presence':
          if (frame.state !== 'idle' && frame.state !== 'working') return this.send({ type: 'error', detail: "malformed frame: presence state must be 'idle' or 'working'" });
          presence.declare(agent.id, frame.state);
          return;
        case 'ack':
          if (typeof frame.cursors !== 'object' || frame.cursors === null) return this.send({ type: 'error', detail: 'malformed frame: ack needs cursors' });
          await this.hub.reading.ack(agent.id, frame.cursors as Record<string, number>, (c) => void this.hub.channels.requireMember(c, agent.id));
          return;
        case 'ping': return this.send({ type: 'pong' });
        default: return this.send({ type: 'error', detail: `unknown frame type '${String(frame.type)}'` });
      }
    } catch (err) {
      if (isHttpError(err)) return this.send({ type: 'error', detail: err.message, status: err.status });
      this.hub.log.error('socket frame failed', { err });
      return this.send({ type: 'error', detail: 'the hub could not handle this frame', status: 500 });
    }
  }

  private subscribe(frame: Record<string, unknown>): void {
    const channels = frame.channels;
    if (!Array.isArray(channels) || channels.some((c) => typeof c !== 'string')) return this.send({ type: 'error', detail: 'malformed frame: subscribe needs channels: string[]' });
    for (const c of channels as string[]) this.hub.channels.requireMember(c, this.seat);
    const since = (typeof frame.since === 'object' && frame.since !== null ? frame.since : {}) as Record<string, unknown>;
    this.send({ type: 'subscribed', channels });
    for (const c of [...(channels as string[])].sort()) {
      const from = since[c];
      if (typeof from !== 'number' || !Number.isInteger(from) || from < 0) continue;
      for (const { value } of this.hub.db.messages.getRange({ start: [c, from + 1], end: [c, Number.MAX_SAFE_INTEGER] })) this.deliver(value, false, new EnvelopeFrames(this.hub.envelopes, value));
    }
  }
}
