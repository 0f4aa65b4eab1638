/**
 * The hub's live socket. On every open (and whenever the set of member channels changes) it sends
 * one `subscribe` frame: the sorted member channel names and, for the channels the page holds a
 * cursor for, `since` so the hub replays what was missed. Only `envelope` frames matter; the page
 * re-reads history over REST when one arrives. A lost socket retries after min(15 s, 1 s × retry);
 * the retry count resets only after an open that lasted 15 s. REST polling covers the gaps.
 */

export type LiveState = 'off' | 'connecting' | 'open' | 'closed';

/** The fields of an envelope frame the page reads. */
export interface LiveEnvelope {
  id?: string;
  channel: string;
  seq: number;
  sender?: string;
  retracted?: boolean;
}

export interface LiveSocketOptions {
  /** The socket URL (the client's `ws_url()`); null means no seat key, so no socket. */
  url: () => string | null;
  onEnvelope: (envelope: LiveEnvelope) => void;
  onState?: (state: LiveState, detail?: string) => void;
  /** Injected in tests; defaults to the browser's WebSocket. */
  WebSocketImpl?: typeof WebSocket;
}

const RETRY_STEP_MS = 1000;
const RETRY_CAP_MS = 15_000;
const STABLE_OPEN_MS = 15_000;

export function reconnectDelay(retry: number): number {
  return Math.min(RETRY_CAP_MS, RETRY_STEP_MS * Math.max(1, retry));
}

export class LiveSocket {
  private socket: WebSocket | null = null;
  private retry = 0;
  private openedAt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private channels: string[] = [];
  private readonly cursors = new Map<string, number>();
  private lastFrame = '';
  private stopped = true;

  constructor(private readonly options: LiveSocketOptions) {}

  /** Opens the socket (idempotent). */
  start(): void {
    this.stopped = false;
    if (!this.socket && !this.timer) this.connect();
  }

  /** Closes the socket and cancels any pending reconnect. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close(1000, 'signed out');
    }
    this.retry = 0;
    this.cursors.clear();
    this.channels = [];
    this.lastFrame = '';
    this.options.onState?.('off');
  }

  /** The member channels to subscribe to; re-subscribes when the set changes. */
  setChannels(names: Iterable<string>): void {
    const next = [...new Set(names)].sort();
    if (next.join('\n') === this.channels.join('\n')) return;
    this.channels = next;
    this.subscribe();
  }

  /** Records the highest seq the page holds for a channel (from a REST page or an envelope). */
  noteSeq(channel: string, seq: number): void {
    if (!Number.isInteger(seq) || seq < 0) return;
    if (seq > (this.cursors.get(channel) ?? -1)) this.cursors.set(channel, seq);
  }

  get state(): LiveState {
    if (!this.socket) return this.stopped ? 'off' : 'closed';
    return this.socket.readyState === 1 ? 'open' : 'connecting';
  }

  private connect(): void {
    this.timer = null;
    if (this.stopped) return;
    const url = this.options.url();
    if (!url) {
      this.options.onState?.('off');
      return;
    }
    const Impl = this.options.WebSocketImpl ?? WebSocket;
    let socket: WebSocket;
    try {
      socket = new Impl(url);
    } catch (err) {
      this.options.onState?.('closed', String(err));
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.options.onState?.('connecting');
    socket.onopen = () => {
      this.openedAt = Date.now();
      this.lastFrame = '';
      this.options.onState?.('open');
      this.subscribe();
    };
    socket.onmessage = (event: MessageEvent) => this.receive(event.data);
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.openedAt && Date.now() - this.openedAt >= STABLE_OPEN_MS) this.retry = 0;
      this.openedAt = 0;
      this.options.onState?.('closed', event.reason || `code ${event.code}`);
      this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer) return;
    this.retry += 1;
    this.timer = setTimeout(() => this.connect(), reconnectDelay(this.retry));
  }

  private subscribe(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1 || this.channels.length === 0) return;
    const since: Record<string, number> = {};
    for (const name of this.channels) {
      const cursor = this.cursors.get(name);
      if (cursor !== undefined) since[name] = cursor;
    }
    const frame = JSON.stringify({ type: 'subscribe', channels: this.channels, since });
    if (frame === this.lastFrame) return;
    this.lastFrame = frame;
    socket.send(frame);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: { type?: unknown; envelope?: unknown };
    try {
      frame = JSON.parse(data) as typeof frame;
    } catch {
      return;
    }
    if (frame.type !== 'envelope' || typeof frame.envelope !== 'object' || frame.envelope === null) return;
    const envelope = frame.envelope as Partial<LiveEnvelope>;
    if (typeof envelope.channel !== 'string' || typeof envelope.seq !== 'number') return;
    this.noteSeq(envelope.channel, envelope.seq);
    this.options.onEnvelope(envelope as LiveEnvelope);
  }
}
