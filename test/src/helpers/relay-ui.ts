/**
 * Helpers for the relay status page tests (`relay-ui-*.test.ts`): a relay kernel (the relay plugin
 * alone, real boot path) over a `RelayUpstream` with the given accounts, and the token the page is
 * given.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { relayPlugin, type HostedAccountConfig } from '@keel/plugin-relay';
import { RelayUpstream } from './relay-upstream.js';

export interface RelayUiHarness {
  kernel: TestKernel;
  upstream: RelayUpstream;
  /** What a user pastes into the page. */
  token: string;
  stop(): Promise<void>;
}

/** The relay token: the file the relay created at its first start (`<data>/plugins/relay/relay-token`). */
export function relayTokenOf(kernel: TestKernel): string {
  const file = path.join(kernel.dataDir, 'plugins', 'relay', 'relay-token');
  return readFileSync(file, 'utf8').trim();
}

export async function startRelay(options: {
  upstream?: RelayUpstream;
  accounts?: (upstreamUrl: string) => HostedAccountConfig[];
  config?: Record<string, unknown>;
  mounts?: Record<string, string>;
  prefix?: string;
} = {}): Promise<RelayUiHarness> {
  const upstream = options.upstream ?? new RelayUpstream();
  const url = upstream.url || (await upstream.start());
  const accounts = options.accounts?.(url) ?? [];
  const config = { ...(options.config ?? {}), hosted: { accounts, ...((options.config?.hosted as object | undefined) ?? {}) } };
  const kernel = await createTestKernel({ plugins: [{ plugin: relayPlugin, config, mounts: options.mounts, prefix: options.prefix }] });
  return {
    kernel, upstream, token: relayTokenOf(kernel),
    stop: async () => {
      await kernel.stop();
      await upstream.stop();
    },
  };
}
