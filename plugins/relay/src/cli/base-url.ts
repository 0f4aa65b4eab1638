/** Where the running relay answers: `--url`, else the config's `server.host`/`server.port` and the relay's prefix. */
import type { CommandContext } from '@keel/plugin-sdk';

export const DEFAULT_RELAY_PORT = 8317;

export function relayBaseUrl(ctx: Pick<CommandContext, 'server'>, prefix: string, override: string | undefined): string {
  if (override) return override.replace(/\/+$/, '');
  const host = ctx.server?.host ?? '127.0.0.1';
  const port = ctx.server?.port ?? DEFAULT_RELAY_PORT;
  // A wildcard listen address is reached on loopback.
  const reach = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${reach}:${port}${prefix.replace(/\/+$/, '')}`;
}
