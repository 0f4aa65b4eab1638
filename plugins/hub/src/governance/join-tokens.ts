/**
 * Join tokens (reference §2.1): remote onboarding without handing out the admin key. The admin mints
 * `agora-join_<8 hex id>.<48 hex secret>` (the hub keeps only the secret's sha256); whoever holds it
 * registers one non-operator seat per use via the unauthenticated `POST /join`, optionally locked to
 * one id, and lands in the token's public channels. A use is reserved before registering and given
 * back when the registration is refused, so a taken id does not consume the token.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest, forbidden, notFound } from '@keel/plugin-sdk';
import type { Database } from 'lmdb';
import type { Hub } from '../hub.js';
import type { AgentInfo } from '../identity/agent-registry.js';
import { agentIdProblem, nowSeconds, sha256Hex } from '../ids.js';
import { capText } from '../text-rules.js';

const TOKEN = /^agora-join_([0-9a-f]{8})\.([0-9a-f]{48})$/;
const DEFAULT_TTL = 86400;
const MAX_TTL = 30 * 86400;

interface JoinTokenRecord {
  token_id: string;
  secret_hash: string;
  agent_id: string | null;
  about: string;
  channels: string[];
  created_by: string;
  created_at: number;
  expires_at: number;
  max_uses: number;
  uses: number;
  used_by: string[];
  revoked_at: number | null;
}

export interface MintInput {
  agent_id?: string | null;
  about?: string;
  channels?: string[];
  ttl_seconds?: number;
  max_uses?: number;
}

/** What the audit list shows of a token (never its secret). */
function audit(r: JoinTokenRecord) {
  return {
    token_id: r.token_id, agent_id: r.agent_id, about: r.about, channels: r.channels, created_by: r.created_by, created_at: r.created_at,
    expires_at: r.expires_at, max_uses: r.max_uses, uses: r.uses, used_by: r.used_by, revoked: r.revoked_at !== null,
  };
}

export class JoinTokens {
  private readonly tokens: Database<JoinTokenRecord, string>;

  constructor(private readonly hub: Hub) {
    this.tokens = hub.db.openDB('join-tokens');
  }

  async mint(input: MintInput, by: string) {
    const agentId = input.agent_id ?? null;
    if (agentId !== null) {
      const problem = agentIdProblem(agentId);
      if (problem) throw badRequest(problem);
    }
    const ttl = input.ttl_seconds ?? DEFAULT_TTL;
    if (!(ttl > 0 && ttl <= MAX_TTL)) throw badRequest(`ttl_seconds must be in (0, ${MAX_TTL}] — a join token lasts at most 30 days`);
    const maxUses = input.max_uses ?? 1;
    if (!(Number.isInteger(maxUses) && maxUses >= 1 && maxUses <= 100)) throw badRequest('max_uses must be an integer from 1 to 100');
    if (agentId !== null && maxUses !== 1) throw badRequest('a token locked to one agent_id registers it once — max_uses must be 1');
    const channels = [...new Set(input.channels ?? [])];
    for (const name of channels) this.hub.channels.require(name);
    let tokenId = randomBytes(4).toString('hex');
    while (this.tokens.doesExist(tokenId)) tokenId = randomBytes(4).toString('hex');
    const secret = randomBytes(24).toString('hex');
    const now = nowSeconds();
    const record: JoinTokenRecord = {
      token_id: tokenId, secret_hash: sha256Hex(secret), agent_id: agentId, about: capText(input.about ?? '', 500, 'about'), channels,
      created_by: by, created_at: now, expires_at: now + ttl, max_uses: maxUses, uses: 0, used_by: [], revoked_at: null,
    };
    await this.tokens.put(tokenId, record);
    const { token_id, agent_id, about, created_by, created_at, expires_at, max_uses } = record;
    return { token: `agora-join_${tokenId}.${secret}`, token_id, agent_id, about, channels, created_by, created_at, expires_at, max_uses };
  }

  list() {
    return [...this.tokens.getRange()].map((e) => audit(e.value)).sort((a, b) => a.created_at - b.created_at);
  }

  async revoke(tokenId: string): Promise<{ token_id: string; revoked: boolean }> {
    const r = this.tokens.get(tokenId);
    if (!r) throw notFound(`join token '${tokenId}' not found`);
    if (r.revoked_at !== null) return { token_id: tokenId, revoked: false };
    await this.tokens.put(tokenId, { ...r, revoked_at: nowSeconds() });
    return { token_id: tokenId, revoked: true };
  }

  /** Registers a seat with a join token: `{agent, api_key, channels_joined}`. */
  async join(token: string, agentId: string | undefined, about: string | undefined): Promise<{ agent: AgentInfo; api_key: string; channels_joined: string[] }> {
    const tokenId = await this.reserve(token, agentId);
    const r = this.tokens.get(tokenId)!;
    const id = r.agent_id ?? agentId!;
    let registered;
    try {
      registered = await this.hub.agents.register({ id, about: about ?? r.about, operator: false });
    } catch (err) {
      await this.hub.db.transaction(() => {
        const now = this.tokens.get(tokenId)!;
        this.tokens.put(tokenId, { ...now, uses: now.uses - 1 });
      });
      throw err;
    }
    const seat = this.hub.agents.get(id)!;
    const joined = await this.hub.writer.run((w) => {
      const names: string[] = [];
      for (const name of r.channels) {
        const c = this.hub.channels.get(name);
        if (!c || c.private || c.archived || c.is_dm || this.hub.db.isMember(name, id) || this.hub.db.blocks.get([name, id])) continue;
        this.hub.channels.joinIn(w, name, seat);
        names.push(name);
      }
      const current = this.tokens.get(tokenId)!;
      this.tokens.put(tokenId, { ...current, used_by: [...current.used_by, id] });
      return names;
    });
    return { ...registered, channels_joined: joined };
  }

  /** Checks the token and takes one use in one transaction; returns its id. */
  private async reserve(token: string, agentId: string | undefined): Promise<string> {
    const match = TOKEN.exec(token);
    if (!match) throw forbidden('invalid join token');
    const [, tokenId, secret] = match as unknown as [string, string, string];
    return this.hub.db.transaction(() => {
      const r = this.tokens.get(tokenId);
      if (!r || !timingSafeEqual(Buffer.from(r.secret_hash, 'hex'), Buffer.from(sha256Hex(secret), 'hex'))) throw forbidden('invalid join token');
      if (r.revoked_at !== null) throw forbidden('join token revoked');
      if (r.expires_at <= nowSeconds()) throw forbidden('join token expired');
      if (r.uses >= r.max_uses) throw forbidden('join token already used');
      if (r.agent_id !== null && agentId !== undefined && agentId !== r.agent_id) throw forbidden(`join token is locked to '${r.agent_id}'`);
      if (r.agent_id === null && !agentId) throw badRequest('agent_id is required — this join token is not locked to an id');
      this.tokens.put(tokenId, { ...r, uses: r.uses + 1 });
      return tokenId;
    });
  }
}
