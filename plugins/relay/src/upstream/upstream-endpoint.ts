/**
 * Where one account's calls go: its `/v1` root, its key and its keep-alive agent. The account pool
 * hands these out (`pool.upstreamOf(account)`); `ConfiguredEndpoints` builds them from the
 * configured accounts for wiring that has no pool offering them.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { HostedAccountConfig } from '../config.js';
import type { UpstreamAccount } from '../contracts.js';

export interface UpstreamEndpoint {
  baseUrl: string;
  apiKey: string;
  agent: HttpAgent;
}

/** What the hosted lane asks for an account's endpoint (the pool implements it). */
export interface EndpointSource {
  upstreamOf(account: UpstreamAccount): UpstreamEndpoint;
}

/** One keep-alive agent per account: sockets are reused across calls instead of a connect per call. */
export function keepAliveAgent(baseUrl: string): HttpAgent {
  const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo' as const };
  return baseUrl.startsWith('https:') ? new HttpsAgent(options) : new HttpAgent(options);
}

/** The key of a configured account: `apiKey`, else the environment variable `apiKeyEnv`. */
export function apiKeyOf(account: HostedAccountConfig, env: NodeJS.ProcessEnv = process.env): string {
  if (account.apiKey) return account.apiKey;
  if (account.apiKeyEnv) return env[account.apiKeyEnv] ?? '';
  return '';
}

/** Endpoints built from the configured accounts, by base URL and slug. */
export class ConfiguredEndpoints implements EndpointSource {
  private readonly bySlug = new Map<string, UpstreamEndpoint>();

  constructor(accounts: ReadonlyArray<{ slug: string; config: HostedAccountConfig }>) {
    for (const { slug, config } of accounts) {
      const baseUrl = config.baseUrl.replace(/\/+$/, '');
      this.bySlug.set(slug, { baseUrl, apiKey: apiKeyOf(config), agent: keepAliveAgent(baseUrl) });
    }
  }

  upstreamOf(account: UpstreamAccount): UpstreamEndpoint {
    const endpoint = this.bySlug.get(account.slug);
    if (!endpoint) throw new Error(`no configured upstream account named ${account.slug}`);
    return endpoint;
  }

  /** Closes the idle sockets (at plugin stop). */
  close(): void {
    for (const endpoint of this.bySlug.values()) endpoint.agent.destroy();
  }
}
