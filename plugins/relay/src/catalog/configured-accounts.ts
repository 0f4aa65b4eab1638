/**
 * The hosted accounts straight from the settings, for the catalog when no account pool is wired:
 * slug (`<email local part>-<10 hex>` unless configured), key (`apiKey`, else the variable
 * `apiKeyEnv`) and one keep-alive agent per account. The account pool offers the same through
 * `accounts` and `upstreamOf(account)`; `index.ts` points the catalog at it when it is there.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { HostedAccountConfig } from '../config.js';
import type { UpstreamAccount } from '../contracts.js';
import type { HostedAccounts, UpstreamEndpoint } from './catalog-sources.js';

export function configuredAccounts(configs: readonly HostedAccountConfig[], env: NodeJS.ProcessEnv = process.env): HostedAccounts {
  const endpoints = new Map<UpstreamAccount, UpstreamEndpoint>();
  const accounts = configs.map((config) => {
    const seed = config.email ?? config.baseUrl;
    const slug = config.slug ?? `${(config.email?.split('@')[0] ?? 'account').toLowerCase().replace(/[^a-z0-9._-]/g, '') || 'account'}-${createHash('sha256').update(seed).digest('hex').slice(0, 10)}`;
    const account: UpstreamAccount = { slug, email: config.email ?? null, baseUrl: config.baseUrl };
    const Agent = config.baseUrl.startsWith('https:') ? https.Agent : http.Agent;
    endpoints.set(account, { baseUrl: config.baseUrl, apiKey: config.apiKey ?? (config.apiKeyEnv ? env[config.apiKeyEnv] ?? '' : ''), agent: new Agent({ keepAlive: true }) });
    return account;
  });
  return {
    accounts: () => accounts,
    endpointOf: (account) => {
      const endpoint = endpoints.get(account);
      if (!endpoint) throw new Error(`unknown hosted account ${account.slug}`);
      return endpoint;
    },
  };
}
