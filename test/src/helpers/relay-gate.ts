/**
 * The relay gate for tests of the relay's other parts: the relay token a test kernel created (its
 * file under the data directory), and gate limits set out of the way so a test that sends many
 * requests from one address tests its own rules, not the bucket (the gate's own tests,
 * relay-gate-*.test.ts, use the defaults or tighter limits).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export function relayTokenOf(kernel: { dataDir: string }): string {
  return readFileSync(path.join(kernel.dataDir, 'plugins', 'relay', 'relay-token'), 'utf8').trim();
}

export const OPEN_GATE = { rateLimitPerMinute: 1_000_000, rateLimitBurst: 1_000_000, concurrentRequestsPerIp: 10_000, failedAuthMaxAttempts: 1_000_000 };
