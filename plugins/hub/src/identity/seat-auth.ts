/**
 * Who is calling: a seat (by its key) or the hub admin (the kernel's admin token). Every refusal
 * is the hub's sentence: missing/invalid key → 401, hub block or retirement → 403.
 */
import type { IncomingMessage } from 'node:http';
import { forbidden, unauthorized, type AuthService, type RouteContext } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, BlockRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { AgentRegistry } from './agent-registry.js';

/** The admin key acting on an operator-or-admin route. */
export const ADMIN_PRINCIPAL = { id: 'operator', operator: true } as const;
export type Actor = AgentRecord | typeof ADMIN_PRINCIPAL;
type KoaContext = RouteContext<unknown, unknown, unknown>['koa'];

export function bearerOf(header: string | undefined): string | null {
  if (!header || !header.startsWith('Bearer ')) return null;
  const key = header.slice(7).trim();
  return key || null;
}

function clock(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(11, 16);
}

/** The sentence a blocked seat reads (`null` when the block has expired). */
export function blockRefusal(block: BlockRecord | undefined, where: string): string | null {
  if (!block || (block.expires_at !== null && block.expires_at <= nowSeconds())) return null;
  const reason = block.reason ? ` — ${block.reason}` : '';
  const what = block.expires_at === null ? `banned by ${block.imposed_by}` : `kicked by ${block.imposed_by} until ${clock(block.expires_at)}`;
  return `you are ${what} from ${where}${reason}. Access resumes when the block expires or an operator lifts it.`;
}

export class SeatAuth {
  constructor(private readonly db: HubDb, private readonly agents: AgentRegistry, private readonly kernelAuth: AuthService) {}

  /** The seat a key stands for, or the refusal (status and sentence) — shared by HTTP and the socket. */
  resolve(key: string | null): { agent: AgentRecord } | { status: 401 | 403; detail: string } {
    if (!key) return { status: 401, detail: 'missing bearer token' };
    const agent = this.agents.byKey(key);
    if (!agent) return { status: 401, detail: 'invalid api key' };
    const refusal = this.refusalFor(agent);
    return refusal ? { status: 403, detail: refusal } : { agent };
  }

  /** Why an existing seat may not act right now (hub block, retirement), or null. */
  refusalFor(agent: AgentRecord): string | null {
    if (!agent.operator) {
      const blocked = blockRefusal(this.db.blocks.get(['hub', agent.id]), 'this hub');
      if (blocked) return blocked;
    }
    if (agent.retired_at !== null) {
      const reason = agent.retire_reason ? ` (${agent.retire_reason})` : '';
      return `this identity has been retired${reason} — a decommissioned seat, not a block. An operator can restore it; the id is never reused.`;
    }
    return null;
  }

  /** The calling seat; 401/403 otherwise. A bad key counts against the caller's address (429 after the kernel's burst). */
  seat(ctx: KoaContext): AgentRecord {
    const r = this.check(ctx, bearerOf(ctx.get('authorization') || undefined));
    if ('agent' in r) return r.agent;
    if (r.status === 401) throw unauthorized(r.detail, { headers: { 'www-authenticate': 'Bearer' } });
    throw forbidden(r.detail);
  }

  /**
   * `resolve` for an HTTP request: a source over the kernel's burst of
   * failed sign-ins is refused with 429 before its key is looked at, and a key that is no seat's
   * counts as a failed sign-in against the source.
   */
  check(request: KoaContext | IncomingMessage, key: string | null): ReturnType<SeatAuth['resolve']> {
    if (key) this.kernelAuth.refuseThrottledSource(request);
    const r = this.resolve(key);
    if (key && !('agent' in r) && r.status === 401) void this.countUnlessKernelToken(request, key);
    return r;
  }

  /** A key that is no seat's counts as a failed sign-in, unless it is a valid kernel token (the admin key on a seat route). */
  private async countUnlessKernelToken(request: KoaContext | IncomingMessage, key: string): Promise<void> {
    if (!key.startsWith('agora_') && (await this.kernelAuth.authenticate(key))) return;
    this.kernelAuth.recordFailedAuthentication(request, 'hub seat key');
  }

  /** True when the request carries the kernel's admin token (the hub's admin key). */
  async isAdminKey(ctx: KoaContext): Promise<boolean> {
    const key = bearerOf(ctx.get('authorization') || undefined);
    if (!key || key.startsWith('agora_')) return false;
    this.kernelAuth.refuseThrottledSource(ctx);
    return this.kernelAuth.isAdmin(await this.kernelAuth.authenticate(key));
  }

  /** Operator seat or the admin key; `refusal` is the 403 sentence for a non-operator seat. */
  async operatorOrAdmin(ctx: KoaContext, refusal: string): Promise<Actor> {
    if (await this.isAdminKey(ctx)) return ADMIN_PRINCIPAL;
    const agent = this.seat(ctx);
    if (!agent.operator) throw forbidden(refusal);
    return agent;
  }

  /** An operator seat (the admin key is not accepted here). */
  operator(ctx: KoaContext, refusal: string): AgentRecord {
    const agent = this.seat(ctx);
    if (!agent.operator) throw forbidden(refusal);
    return agent;
  }
}
