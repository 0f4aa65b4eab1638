/**
 * Commands (seed 000 §4.4, reference §6): an append-only log in LMDB with a global seq and a
 * unique `command_id` (a repeat answers `duplicate: true` with the original seq), plus the
 * runner's consumer cursor, saved after each command is applied.
 */
import type { Database } from 'lmdb';
import { conflict, type PluginStorage } from '@keel/plugin-sdk';

export interface CommandRecord {
  command_id: string;
  run_id: string;
  type: string;
  payload: Record<string, unknown>;
  ts: string;
  client_id: string | null;
  account: string;
  seq: number;
}

export class CommandStore {
  private readonly log: Database<CommandRecord, number>;
  private readonly ids: Database<number, string>;
  private readonly meta: Database<number, string>;

  constructor(private readonly storage: PluginStorage) {
    this.log = storage.openDB<CommandRecord, number>('commands');
    this.ids = storage.openDB<number, string>('command-ids');
    this.meta = storage.openDB<number, string>('command-cursor');
  }

  /**
   * Queues a command unless its id was used: by the same account, a repeat (`duplicate: true`); by
   * another account, 409 `command_id_taken` — ids are one namespace for every account, and answering
   * another account's command as a duplicate dropped this one silently (and told of the other's).
   */
  async submit(command: Omit<CommandRecord, 'seq'>): Promise<{ accepted: boolean; duplicate: boolean; seq: number }> {
    return this.storage.transaction(() => {
      const existing = this.ids.get(command.command_id);
      if (existing !== undefined) {
        const holder = this.log.get(existing);
        if (holder && holder.account !== command.account) throw commandIdTaken(command.command_id);
        return { accepted: false, duplicate: true, seq: existing };
      }
      let last = 0;
      for (const key of this.log.getKeys({ reverse: true, limit: 1 })) last = key;
      const seq = last + 1;
      void this.log.put(seq, { ...command, seq });
      void this.ids.put(command.command_id, seq);
      return { accepted: true, duplicate: false, seq };
    });
  }

  /** The seq a command id was queued under, or undefined when it is new. */
  seqOf(commandId: string): number | undefined {
    return this.ids.get(commandId);
  }

  /** True when a command for one of these runs is queued and not yet applied. */
  pendingFor(runIds: ReadonlySet<string>): boolean {
    for (const { value } of this.log.getRange({ start: this.cursor() + 1 })) if (runIds.has(value.run_id)) return true;
    return false;
  }

  after(cursor: number, limit = 200): CommandRecord[] {
    return [...this.log.getRange({ start: cursor + 1, limit }).map(({ value }) => value)];
  }

  cursor(): number {
    return this.meta.get('cursor') ?? 0;
  }

  async saveCursor(seq: number): Promise<void> {
    await this.meta.put('cursor', seq);
  }
}

/** The refusal of a command id another account queued a command under. */
export function commandIdTaken(commandId: string) {
  return conflict(`command_id '${commandId.slice(0, 200)}' is already taken; send the command under a new command_id.`, { code: 'command_id_taken' });
}
