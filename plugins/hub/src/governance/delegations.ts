/**
 * Delegations: an operator lends named powers to a non-operator seat with a standing mission, for
 * a bounded time (default 7 days, at most 30), hub-wide (`""`/`"*"`) or for one channel. One grant
 * per seat; a new grant replaces the old. Other modules ask `hasPower` (the desk accepts
 * `reporting` delegates, channel blocks accept `moderation` ones).
 */
import type { Delegation as ServedDelegation } from '@keel/hub-client';
import { badRequest, conflict, notFound } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { AgentRegistry } from '../identity/agent-registry.js';
import { nowSeconds } from '../ids.js';
import type { HubDb } from '../store/hub-db.js';
import { capText, sanitize } from '../text-rules.js';

export const POWERS = ['moderation', 'operational', 'proxy', 'reporting', 'ruling'] as const;
export type Power = (typeof POWERS)[number];

const DAY = 86400;
const DEFAULT_TTL = 7 * DAY;
const MAX_TTL = 30 * DAY;
/** A proxy acts in someone's name, so it is short-lived and always bound to one channel. */
const PROXY_DEFAULT_TTL = DAY;
const PROXY_MAX_TTL = 7 * DAY;

/** The served grant (reference §6 Delegation), its powers from the hub's vocabulary. */
export interface Delegation extends ServedDelegation {
  powers: Power[];
}

interface DelegationRecord extends Omit<Delegation, 'expires'> {
  granted_by: string;
}

export interface GrantInput {
  agent_id: string;
  powers: string[];
  ttl_seconds?: number | null;
  note?: string;
  scope?: string;
}

function isHubWide(scope: string): boolean {
  return scope === '' || scope === '*';
}

function served(r: DelegationRecord): Delegation {
  return { agent_id: r.agent_id, powers: r.powers, granted_at: r.granted_at, expires_at: r.expires_at, expires: r.expires_at, note: r.note, scope: r.scope };
}

export class Delegations {
  /** agent id → its grant (expired grants linger until replaced or revoked; readers skip them). */
  private readonly grants: Database<DelegationRecord, string>;

  constructor(private readonly db: HubDb, private readonly agents: AgentRegistry) {
    this.grants = db.openDB('delegations');
  }

  /** Every live grant, sorted by agent id. */
  active(): Delegation[] {
    const now = nowSeconds();
    return [...this.grants.getRange()].map((e) => e.value).filter((r) => r.expires_at > now).map(served);
  }

  /** The seat's live grants (zero or one), as `/whoami` serves them. */
  activeFor(agent: string): Delegation[] {
    const r = this.grants.get(agent);
    return r && r.expires_at > nowSeconds() ? [served(r)] : [];
  }

  /**
   * True when `agent` holds a live grant of `power` whose scope reaches `channel` (a hub-wide
   * grant reaches every channel; without `channel` only a hub-wide grant counts).
   */
  hasPower(agent: string, power: Power, channel?: string): boolean {
    const r = this.grants.get(agent);
    if (!r || r.expires_at <= nowSeconds() || !r.powers.includes(power)) return false;
    return isHubWide(r.scope) || (channel !== undefined && r.scope === channel);
  }

  /** True when `agent` holds any live grant (delegates are shielded from non-operator moderation). */
  isDelegate(agent: string): boolean {
    return this.activeFor(agent).length > 0;
  }

  async grant(input: GrantInput, by: string): Promise<Delegation> {
    const powers = [...new Set(input.powers)].sort();
    if (!powers.length || powers.some((p) => !(POWERS as readonly string[]).includes(p))) {
      throw badRequest(`powers must be a non-empty subset of [${POWERS.map((p) => `'${p}'`).join(', ')}]`);
    }
    const target = this.agents.live(input.agent_id);
    if (!target) throw notFound(`agent '${input.agent_id}' is not registered`);
    if (target.retired_at !== null) throw conflict(`'${target.id}' has been retired — restore it before delegating to it`);
    if (target.operator) throw badRequest(`'${target.id}' is an operator — operators hold every power already and need no delegation`);
    if (!target.mission.trim()) {
      throw badRequest(`'${target.id}' has no mission — set one before delegating to it (PUT /admin/agents/${target.id}/mission): a delegate acts on a standing charge`);
    }
    const scope = input.scope ?? '';
    if (!isHubWide(scope) && !this.db.channels.doesExist(scope)) throw notFound(`channel '${scope}' not found`);
    const proxy = powers.includes('proxy');
    if (proxy && isHubWide(scope)) throw badRequest("a 'proxy' grant needs a scope — name the one channel the delegate may act in");
    const cap = proxy ? PROXY_MAX_TTL : MAX_TTL;
    const ttl = input.ttl_seconds ?? (proxy ? PROXY_DEFAULT_TTL : DEFAULT_TTL);
    if (!(ttl > 0 && ttl <= cap)) throw badRequest(`ttl_seconds must be in (0, ${cap}] — ${proxy ? "a 'proxy' grant lasts at most 7 days" : 'a delegation lasts at most 30 days'} (default ${proxy ? '1 day' : '7 days'})`);
    const now = nowSeconds();
    const record: DelegationRecord = {
      agent_id: target.id, powers: powers as Power[], granted_at: now, expires_at: now + ttl,
      note: capText(sanitize(input.note ?? ''), 200, 'note'), scope, granted_by: by,
    };
    await this.grants.put(target.id, record);
    return served(record);
  }

  /** Ends a seat's grant; `revoked` says whether a live one existed. */
  async revoke(agent: string): Promise<{ agent_id: string; revoked: boolean }> {
    const live = this.activeFor(agent).length > 0;
    await this.grants.remove(agent);
    return { agent_id: agent, revoked: live };
  }

  /** Inside a write (bans, retirement, deletion): drops the seat's grant. */
  revokeIn(agent: string): void {
    this.grants.remove(agent);
  }
}
