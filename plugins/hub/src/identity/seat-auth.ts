/**
 * Who is calling: a seat (by its key) or the hub admin (the kernel's admin token). The kernel runs
 * these authenticators before a route's handler (and the socket's upgrade runs `seatKey` too):
 * every refusal is the hub's sentence, missing/invalid key → 401, hub block or retirement → 403.
 */
import { defineAuthenticator, forbidden, unauthorized, type Authenticator, type AuthService, type SecurityScheme } from '@keel/plugin-sdk';
import { nowSeconds } from '../ids.js';
import type { AgentRecord, BlockRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import type { AgentRegistry } from './agent-registry.js';

/** The admin key acting on an operator-or-admin route. */
export const ADMIN_PRINCIPAL = { id: 'operator', operator: true } as const;
export type Actor = AgentRecord | typeof ADMIN_PRINCIPAL;

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

/** The seat-key scheme: a bearer key, shown once when the seat is registered. */
const SEAT_KEY_SCHEME: SecurityScheme = {
  type: 'http', scheme: 'bearer',
  description: 'A hub seat key (`agora_...`), shown once by `POST /hub/agents`, `POST /hub/join` or `keel hub register`. Operator routes also take the admin key.',
};
const SEAT_KEY_REFUSALS = { missing: 'missing bearer token', invalid: 'invalid api key' };

/**
 * The hub's authenticators, all on the bearer header: a seat (`seatKey`), a seat or the admin key
 * (`seatOrAdminKey`, operator acts), or the admin key alone (`adminKey`). The admin key is the
 * kernel's admin token; seat keys start with `agora_`.
 */
export class SeatAuth {
  /** A seat; 401 without a key or with one that is no seat's (counted, unless it is a kernel token), 403 when blocked or retired. */
  readonly seatKey: Authenticator<AgentRecord>;
  /** The admin key, else a seat as `seatKey` admits it. */
  readonly seatOrAdminKey: Authenticator<Actor>;

  constructor(
    private readonly db: HubDb,
    private readonly agents: AgentRegistry,
    private readonly kernelAuth: AuthService,
    /** Told of every successful seat-key sign-in (presence's `last_seen`); admin-key calls are not seat activity. */
    private readonly signedIn: (seat: AgentRecord) => void = () => {},
  ) {
    this.seatKey = defineAuthenticator({ name: 'hubSeatKey', scheme: SEAT_KEY_SCHEME, refusals: SEAT_KEY_REFUSALS, authenticate: (key) => this.seat(key) });
    this.seatOrAdminKey = defineAuthenticator<Actor>({
      name: 'hubSeatKey', scheme: SEAT_KEY_SCHEME, refusals: SEAT_KEY_REFUSALS,
      authenticate: async (key) => ((await this.isAdminKey(key)) ? ADMIN_PRINCIPAL : this.seat(key)),
    });
  }

  /**
   * The admin key alone (reference §8.0): no key is 401 `missing bearer token`; any other key (a seat
   * key, a bad key: none counted) is refused with 403 `refusal`, by default `${act} requires the admin key`.
   */
  adminKey(act: string, refusal = `${act} requires the admin key`): Authenticator<typeof ADMIN_PRINCIPAL> {
    return defineAuthenticator({
      name: 'hubAdminKey',
      scheme: { type: 'http', scheme: 'bearer', description: "The hub's admin key: the Keel admin token (`<data>/auth/admin.token`, or `KEEL_ADMIN_TOKEN`)." },
      authenticate: async (key) => {
        if (!key) throw unauthorized(SEAT_KEY_REFUSALS.missing);
        if (!(await this.isAdminKey(key))) throw forbidden(refusal);
        return ADMIN_PRINCIPAL;
      },
    });
  }

  /** The seat a key stands for, or the refusal (status and sentence). */
  resolve(key: string | null): { agent: AgentRecord } | { status: 401 | 403; detail: string } {
    if (!key) return { status: 401, detail: SEAT_KEY_REFUSALS.missing };
    const agent = this.agents.byKey(key);
    if (!agent) return { status: 401, detail: SEAT_KEY_REFUSALS.invalid };
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

  /**
   * `seatKey`'s check: null (refused 401 and counted by the kernel) for a key that is no seat's, but a
   * valid kernel token on a seat route is refused without counting it as a failed sign-in.
   */
  private async seat(key: string | null): Promise<AgentRecord | null> {
    const r = this.resolve(key);
    if ('agent' in r) {
      this.signedIn(r.agent);
      return r.agent;
    }
    if (r.status === 403) throw forbidden(r.detail);
    if (key && !key.startsWith('agora_') && (await this.kernelAuth.authenticate(key))) {
      throw unauthorized(r.detail, { headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    }
    return null;
  }

  /** True when `key` is the kernel's admin token (the hub's admin key). */
  private async isAdminKey(key: string | null): Promise<boolean> {
    if (!key || key.startsWith('agora_')) return false;
    return this.kernelAuth.isAdmin(await this.kernelAuth.authenticate(key));
  }
}

/** An operator seat or the admin key; `refusal` is the 403 sentence for any other seat. */
export function requireOperator<A extends Actor>(actor: A, refusal: string): A {
  if (!actor.operator) throw forbidden(refusal);
  return actor;
}
