/**
 * The two sides compared: Keel's `LedgerStore` on the kernel's own LMDB environment (a test
 * kernel with only the ledger plugin), and lmdb-js alone opened the way the kernel opens it
 * (`overlappingSync: false`, so every commit is synced before its promise resolves), writing the
 * same records under the same `[run_id, seq]` keys. Concurrent puts share commits in both (lmdb-js
 * groups every write issued while a commit is in flight into the next one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { open, type Database, type RootDatabase } from 'lmdb';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { ledgerPlugin, ledgerToken, type LedgerStore, type StepRecord } from '@keel/plugin-ledger';

export interface Side {
  label: string;
  /** A new run, ready to take appends. */
  newRun(): Promise<string>;
  /** Appends durably; resolves once the commit is synced. */
  append(record: StepRecord): Promise<unknown>;
  close(): Promise<void>;
}

export async function keelSide(): Promise<Side> {
  const kernel: TestKernel = await createTestKernel({ plugins: [ledgerPlugin], config: { server: { watchdog: { enabled: false } } } });
  const store: LedgerStore = kernel.resolve(ledgerToken).store;
  return {
    label: 'keel LedgerStore',
    newRun: async () => {
      const runId = randomUUID();
      await store.registerRun({ run_id: runId, account: 'admin', parent_run_id: null, root_run_id: runId, terminal: false, status: 'running' });
      return runId;
    },
    append: (record) => store.append(record),
    close: () => kernel.stop(),
  };
}

export async function rawSide(): Promise<Side> {
  const dir = mkdtempSync(path.join(tmpdir(), 'keel-bench-lmdb-'));
  // The kernel's options (kernel/src/storage/lmdb-env.ts) and a named sub-database, as plugins get.
  const root: RootDatabase = open({ path: dir, maxDbs: 16, overlappingSync: false, compression: false });
  const db: Database<StepRecord, [string, number]> = root.openDB({ name: 'records' });
  const seqs = new Map<string, number>();
  return {
    label: 'raw lmdb-js put',
    newRun: async () => {
      const runId = randomUUID();
      seqs.set(runId, 0);
      return runId;
    },
    append: (record) => {
      const seq = seqs.get(record.run_id)! + 1;
      seqs.set(record.run_id, seq);
      return db.put([record.run_id, seq], record);
    },
    close: async () => {
      await root.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
