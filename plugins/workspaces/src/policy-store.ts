/**
 * Where the policy levels live (LMDB, sub-database `workspaces:policies`): the gateway layer under
 * `gateway`, an account's layer under `['account', account]`, a session's under
 * `['session', owner account, session id]` (the owner's plane: the same session id of another
 * account is another key). Each write goes with its audit record in one transaction.
 */
import type { Database } from 'lmdb';
import type { PluginStorage } from '@keel/plugin-sdk';
import type { AuditLog, AuditRecord } from './audit-log.js';
import { readLayer } from './policy-layer.js';
import type { PolicyLayer } from './workspace-service.js';

export interface StoredLayer extends PolicyLayer {
  updated_at: string;
  updated_by: string;
}

type Key = string | string[];

export class PolicyStore {
  private readonly db: Database<unknown, Key>;

  constructor(
    private readonly storage: PluginStorage,
    private readonly audit: AuditLog,
    /** The gateway level until an admin stores one (setting `gatewayPolicy`). */
    private readonly configuredGateway: PolicyLayer,
  ) {
    this.db = storage.openDB<unknown, Key>('policies');
  }

  /** The gateway level: the stored one, else the configured one. Read at every use (another process may have written it). */
  gateway(): PolicyLayer {
    const stored = this.db.get('gateway');
    return stored === undefined ? this.configuredGateway : readLayer(stored);
  }

  account(account: string): StoredLayer | null {
    return this.read(['account', account]);
  }

  session(account: string, sessionId: string): StoredLayer | null {
    return this.read(['session', account, sessionId]);
  }

  async putGateway(layer: PolicyLayer, audit: AuditRecord): Promise<void> {
    await this.write('gateway', layer, audit);
  }

  async putAccount(account: string, layer: StoredLayer | null, audit: AuditRecord): Promise<void> {
    await this.write(['account', account], layer, audit);
  }

  async putSession(account: string, sessionId: string, layer: StoredLayer | null, audit: AuditRecord): Promise<void> {
    await this.write(['session', account, sessionId], layer, audit);
  }

  private read(key: Key): StoredLayer | null {
    const stored = this.db.get(key) as Partial<StoredLayer> | undefined;
    if (!stored) return null;
    return { ...readLayer(stored), updated_at: String(stored.updated_at ?? ''), updated_by: String(stored.updated_by ?? '') };
  }

  private async write(key: Key, value: PolicyLayer | null, audit: AuditRecord): Promise<void> {
    await this.storage.transaction(() => {
      if (value === null) void this.db.remove(key);
      else void this.db.put(key, value);
      this.audit.appendInTransaction(audit);
    });
  }
}
