/**
 * Helpers for the relay's account pool tests: a pool over a `RelayUpstream` (accounts by API key),
 * a traffic sink that keeps what it is given, and a real attempt that calls the account's
 * `/chat/completions` over the pool's own agent and turns an error status into a `RelayFailure`.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RelayAccountPool, RelayFailure, type HostedAccountConfig, type RelayConfig, type TrafficRecord, type UpstreamAccount } from '@keel/plugin-relay';

export type HostedSettings = RelayConfig['hosted'];

export function hostedSettings(accounts: HostedAccountConfig[], overrides: Partial<HostedSettings> = {}): HostedSettings {
  return {
    enabled: true, accounts, balance: 'balanced', modelsCacheTtlSeconds: 300, extraModels: [], accountCooldownSeconds: 300,
    retryAttempts: 0, retryBackoffSeconds: [0.05, 0.1], requestTimeoutSeconds: 30, maxEventBytes: 4 * 1024 * 1024,
    usageCacheSeconds: 60, usageSignalMaxAgeSeconds: 900, refreshIntervalSeconds: 300, transientHoldSeconds: 30,
    maxAffinityPins: 5000, probeTimeoutSeconds: 10,
    ...overrides,
  };
}

export class RecordingSink {
  readonly records: TrafficRecord[] = [];
  readonly streamLines = false;
  write(record: TrafficRecord): void {
    this.records.push(record);
  }
  of(phase: string): TrafficRecord[] {
    return this.records.filter((r) => r.phase === phase);
  }
}

export interface PoolHarness {
  pool: RelayAccountPool;
  sink: RecordingSink;
  dataDir: string;
  /** Epoch ms the pool sees (moves with `wallOffsetMs`). */
  wall: { offsetMs: number };
  close(): void;
}

export function makePool(settings: HostedSettings, dataDir?: string): PoolHarness {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'relay-pool-'));
  const sink = new RecordingSink();
  const wall = { offsetMs: 0 };
  const pool = new RelayAccountPool({ config: settings, traffic: sink, clock: { nowMs: () => Date.now() + wall.offsetMs }, dataDir: dir, warn: () => {} });
  return {
    pool, sink, dataDir: dir, wall,
    close: () => {
      pool.stop();
      if (!dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One non-stream chat call on `account` through the pool's agent: its slug on success, a RelayFailure otherwise. */
export function callAccount(pool: RelayAccountPool, account: UpstreamAccount, model = 'gpt-test'): Promise<string> {
  const target = pool.upstreamOf(account);
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] });
  return new Promise((resolve, reject) => {
    const req = request(`${target.baseUrl}/chat/completions`, {
      method: 'POST', agent: target.agent,
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error?: Record<string, unknown> };
        if ((res.statusCode ?? 500) >= 400) reject(new RelayFailure(res.statusCode ?? 502, parsed.error as never));
        else resolve(account.slug);
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

export function poolRequest(model = 'gpt-test', extra: { conversationId?: string; signal?: AbortSignal } = {}) {
  return { requestId: `req_${Math.random().toString(16).slice(2).padEnd(32, '0')}`, model, signal: extra.signal ?? new AbortController().signal, ...(extra.conversationId ? { conversationId: extra.conversationId } : {}) };
}
