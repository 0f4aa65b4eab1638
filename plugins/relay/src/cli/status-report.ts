/** `keel relay status`: the relay as its settings and data directory describe it (reference §6), without a running relay. */
import type { RelayCliServices } from './relay-cli-services.js';

export interface StatusReport {
  relay: Record<string, unknown>;
  providers: { hosted: Record<string, unknown>; cli: Record<string, unknown> };
  client: { base_url: string; api_key: string };
  next_steps: string[];
}

/** An account's key: given inline, from its environment variable, or missing. */
export function accountKeyOf(account: { apiKey?: string; apiKeyEnv?: string }, env: NodeJS.ProcessEnv = process.env): { key: string | null; source: string } {
  if (account.apiKey) return { key: account.apiKey, source: 'config' };
  if (account.apiKeyEnv) return env[account.apiKeyEnv] ? { key: env[account.apiKeyEnv]!, source: `env ${account.apiKeyEnv}` } : { key: null, source: `env ${account.apiKeyEnv} (unset)` };
  return { key: null, source: 'none' };
}

export function accountNameOf(account: { slug?: string; email?: string; baseUrl: string }): string {
  return account.slug ?? account.email ?? account.baseUrl;
}

export function statusReport(cli: RelayCliServices, baseUrl: string): StatusReport {
  const { config, token } = cli;
  const required = config.auth.requireBearerAuth;
  const tokenLine = !required ? 'not required (open mode)' : token.value ? `present (${token.source}${token.source === 'file' ? ` ${token.file}` : ''})` : `missing (${token.file})`;
  const accounts = config.hosted.accounts.map((a) => {
    const { key, source } = accountKeyOf(a);
    return { name: accountNameOf(a), email: a.email ?? null, base_url: a.baseUrl, key_present: key !== null, key_source: source, usage_path: a.usagePath ?? null };
  });
  const hosted = cli.parts.hosted?.() ?? { enabled: config.hosted.enabled, balance: config.hosted.balance, accounts };
  const cliPart = cli.parts.cli?.() ?? { enabled: config.cli.enabled, command: config.cli.command ?? ['keel', 'prompt'] };
  const next: string[] = [];
  if (required && !token.value) {
    next.push(config.auth.autoGenerateToken
      ? 'Start the relay once (keel serve --config config/relay.json): it creates the token file; or set RELAY_TOKEN.'
      : `Write a token into ${token.file} or set RELAY_TOKEN (relay.auth.autoGenerateToken is off).`);
  }
  if (config.hosted.enabled && accounts.length === 0) next.push('Add an upstream account under relay.hosted.accounts ({baseUrl, apiKey or apiKeyEnv}) to serve hosted models.');
  for (const a of accounts) if (!a.key_present) next.push(`Give account ${a.name} its key (${a.key_source}).`);
  if (next.length === 0) next.push(`Serve with keel serve --config config/relay.json, then point OpenAI clients at ${baseUrl} with the relay token as the API key.`);
  return {
    relay: {
      base_url: baseUrl,
      data_dir: cli.pluginDir,
      logs_dir: cli.logsDir,
      bearer_auth: required ? 'enabled' : 'disabled',
      relay_token: tokenLine,
      token_source: token.source,
      token_file: token.file,
      rate_limit: `${config.gate.rateLimitPerMinute}/min + burst ${config.gate.rateLimitBurst}`,
      concurrent_requests_per_ip: config.gate.concurrentRequestsPerIp,
    },
    providers: { hosted, cli: cliPart },
    client: { base_url: baseUrl, api_key: required ? `the relay token (RELAY_TOKEN or ${token.file})` : 'any (open mode)' },
    next_steps: next,
  };
}
