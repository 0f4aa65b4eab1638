/**
 * The configured upstream accounts (`hosted.accounts`): a stable slug each (reference §3.1,
 * adapted: accounts are declared, not discovered), the key read once at start, and a keep-alive
 * HTTP agent per account so the hot path reuses its connections (never the global `fetch`).
 */
import { createHash } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { HostedAccountConfig } from '../config.js';
import type { UpstreamAccount } from '../contracts.js';

/** One account as the pool keeps it. */
export interface PoolAccount extends UpstreamAccount {
  readonly apiKey: string;
  /** Path under `baseUrl` of the usage report, or null. */
  readonly usagePath: string | null;
  readonly planType: string | null;
  readonly agent: HttpAgent;
  /** Position in the configuration (the `ordered` strategy and ties follow it). */
  readonly index: number;
}

/** What the hosted lane needs to call an account. */
export interface UpstreamTarget {
  baseUrl: string;
  apiKey: string;
  agent: HttpAgent;
}

/** `<email local part, else host>-<10 hex of sha256(email, else base URL)>`, unless configured. */
export function slugOf(config: HostedAccountConfig): string {
  if (config.slug) return config.slug;
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  const name = config.email ? config.email.split('@')[0]! : hostOf(baseUrl);
  const clean = name.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40) || 'account';
  const hash = createHash('sha256').update(config.email ?? baseUrl).digest('hex').slice(0, 10);
  return `${clean}-${hash}`;
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return 'account';
  }
}

export interface AccountsLoad {
  accounts: PoolAccount[];
  /** Why configured entries were left out, one sentence each (logged at start). */
  skipped: string[];
}

/**
 * Builds the pool's accounts: an entry without a key (neither `apiKey` nor a set `apiKeyEnv`) is
 * skipped, and so is a second entry with a slug already taken (the first one wins).
 */
export function loadAccounts(configs: HostedAccountConfig[], env: NodeJS.ProcessEnv = process.env): AccountsLoad {
  const accounts: PoolAccount[] = [];
  const skipped: string[] = [];
  const taken = new Set<string>();
  for (const config of configs) {
    const slug = slugOf(config);
    const apiKey = config.apiKey ?? (config.apiKeyEnv ? env[config.apiKeyEnv] : undefined);
    if (!apiKey) {
      skipped.push(`hosted account ${slug} has no key: set apiKey, or apiKeyEnv to a variable that is set (${config.apiKeyEnv ?? 'none given'})`);
      continue;
    }
    if (taken.has(slug)) {
      skipped.push(`hosted account ${slug} is configured twice; the first entry is used`);
      continue;
    }
    taken.add(slug);
    const baseUrl = config.baseUrl.replace(/\/+$/, '');
    const agentOptions = { keepAlive: true, scheduling: 'lifo' as const };
    accounts.push({
      slug,
      email: config.email ?? null,
      baseUrl,
      apiKey,
      usagePath: config.usagePath ?? null,
      planType: config.planType ?? null,
      agent: baseUrl.startsWith('https:') ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions),
      index: accounts.length,
    });
  }
  return { accounts, skipped };
}
