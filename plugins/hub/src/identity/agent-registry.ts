/**
 * Seats: registration (admin key or join token), key lookup, and the side effects every new seat
 * gets (membership of `commons` with a `joined` notice and its cursor at the head).
 */
import { badRequest, conflict, forbidden } from '@keel/plugin-sdk';
import { agentIdProblem, newSeatKey, nowSeconds, sha256Hex } from '../ids.js';
import type { AgentRecord } from '../records.js';
import type { HubDb } from '../store/hub-db.js';
import { COMMONS, type ChannelDirectory } from '../channels/channel-directory.js';
import type { HubWriter } from '../messages/hub-writer.js';
import { capText } from '../text-rules.js';

export interface RegisterInput {
  id: string;
  name?: string;
  about?: string;
  mission?: string;
  operator?: boolean;
}

/** What a client sees of a seat (never the key hash). */
export type AgentInfo = Pick<AgentRecord, 'id' | 'name' | 'about' | 'mission' | 'operator' | 'created_at'>;

export function agentInfo(a: AgentRecord): AgentInfo {
  return { id: a.id, name: a.name, about: a.about, mission: a.mission, operator: a.operator, created_at: a.created_at };
}

export class AgentRegistry {
  constructor(private readonly db: HubDb, private readonly writer: HubWriter, private readonly channels: ChannelDirectory) {}

  get(id: string): AgentRecord | undefined {
    return this.db.agents.get(id);
  }

  /** A live (registered, not deleted) agent. */
  live(id: string): AgentRecord | undefined {
    const a = this.db.agents.get(id);
    return a && !a.deleted ? a : undefined;
  }

  byKey(key: string): AgentRecord | undefined {
    const id = this.db.keys.get(sha256Hex(key));
    return id ? this.live(id) : undefined;
  }

  /** Every registered, non-deleted agent, sorted by id. */
  all(): AgentRecord[] {
    return [...this.db.agents.getRange()].map((e) => e.value).filter((a) => !a.deleted);
  }

  /** Registers a seat and returns its key, shown this once. */
  async register(input: RegisterInput): Promise<{ agent: AgentInfo; api_key: string }> {
    const problem = agentIdProblem(input.id);
    if (problem) throw badRequest(problem);
    const about = capText(input.about ?? '', 500, 'about');
    const mission = capText(input.mission ?? '', 4000, 'mission');
    const existing = this.db.agents.get(input.id);
    if (existing?.deleted || existing?.retired_at) throw conflict(`agent id '${input.id}' belonged to a retired identity — ids are never recycled`);
    if (existing) throw conflict(`agent '${input.id}' already exists`);
    const hubBlock = this.db.blocks.get(['hub', input.id]);
    if (hubBlock && (hubBlock.expires_at === null || hubBlock.expires_at > nowSeconds())) {
      throw forbidden(`agent id '${input.id}' is banned from this hub — an operator must lift the block before it can register`);
    }
    const key = newSeatKey();
    const record: AgentRecord = {
      id: input.id, name: input.name ?? '', about, mission, operator: input.operator === true, created_at: nowSeconds(),
      key_hash: sha256Hex(key), retired_at: null, retire_reason: '', deleted: false,
    };
    await this.writer.run((w) => {
      if (this.db.agents.doesExist(record.id)) throw conflict(`agent '${input.id}' already exists`);
      this.db.agents.put(record.id, record);
      this.db.keys.put(record.key_hash, record.id);
      this.channels.joinIn(w, COMMONS, record);
    });
    return { agent: agentInfo(record), api_key: key };
  }
}
