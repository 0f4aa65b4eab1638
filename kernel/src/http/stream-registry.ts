/**
 * The kernel's side of `openSse`: every event stream of every plugin is admitted here, counted per
 * account (`server.live.streamsPerAccount`, the excess answered 429 in the route's error shape) and
 * closed at stop. A stream without a principal (a public route) counts under its client address.
 */
import type Koa from 'koa';
import { serviceUnavailable, tooManyRequests, STREAM_HOST_KEY, type Principal, type SseStream, type StreamHost } from '@keel/plugin-sdk';
import { PRINCIPAL_STATE_KEY } from '../auth/auth-service.js';
import { AccountSlots } from './account-slots.js';

export class StreamRegistry implements StreamHost {
  private readonly open = new Set<SseStream>();
  private readonly slots: AccountSlots;
  private stopping = false;

  constructor(perAccount: number) {
    this.slots = new AccountSlots(perAccount);
  }

  admit(ctx: Koa.Context, stream: SseStream): () => void {
    if (this.stopping) throw serviceUnavailable('The server is stopping; open the stream again once it is back.', { code: 'server_stopping' });
    const principal = ctx.state[PRINCIPAL_STATE_KEY] as Principal | null | undefined;
    const release = this.slots.tryAcquire(principal ? `account:${principal.account}` : `address:${ctx.request.ip}`);
    if (!release) {
      const who = principal ? `Account '${principal.account}'` : 'This address';
      throw tooManyRequests(`${who} already has ${this.slots.limit} event streams open, the most one account may hold at once (server.live.streamsPerAccount). Close one and try again.`, {
        code: 'too_many_streams',
      });
    }
    this.open.add(stream);
    return () => {
      release();
      this.open.delete(stream);
    };
  }

  /** Puts this registry where `openSse` looks for it. */
  middleware(): Koa.Middleware {
    return (ctx, next) => {
      ctx.state[STREAM_HOST_KEY] = this;
      return next();
    };
  }

  /** Ends every open stream (kernel stop) and refuses new ones. */
  closeAll(): void {
    this.stopping = true;
    for (const stream of [...this.open]) stream.close('aborted');
  }
}
