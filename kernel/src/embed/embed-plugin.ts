/**
 * Embeds one plugin in another host (a plain Koa or Express app) with the same boot code as
 * `keel serve`: its config is validated, its storage is the LMDB env under `dataDir`, its pools
 * are owned here and closed by `stop()`. Tokens of other plugins it depends on come from `overrides`.
 * The connections are the host's: its server owns their timeouts and caps (`server.http` does not apply).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { AnyPlugin, DepsMap, PluginDefinition, Token } from '@keel/plugin-sdk';
import { buildConfig } from '../config/load-config.js';
import type { LogLevel } from '../logging/logger.js';
import { Kernel } from '../kernel.js';

export interface EmbedOptions {
  config?: Record<string, unknown>;
  dataDir: string;
  overrides?: Array<[Token<unknown>, unknown]>;
  /**
   * Browser origins allowed to call the embedded routes and open its sockets. The host's own origin
   * counts when the browser reaches it by the address the host listens on (`http://127.0.0.1:3000`,
   * `localhost` for a loopback address); list it here when pages reach the host by a name.
   */
  origins?: string[];
  logLevel?: LogLevel;
}

export interface EmbeddedPlugin<E> {
  /** Koa middleware serving the plugin's routes under `prefix` (`/notes` → `/notes/...`). */
  middleware(prefix?: string): Koa.Middleware;
  /** A Node request handler with paths relative to where the host mounts it (Express `app.use('/x', ...)`). */
  callback(): http.RequestListener;
  /** The plugin's `exports`. */
  exports: E;
  /**
   * Hands WebSocket upgrades under `prefix` to the plugin's socket endpoints (call it from the host
   * server's `upgrade` event); returns false when the path is not the plugin's, so the host can try others.
   */
  upgrade(prefix?: string): (req: http.IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** The bootstrap admin token of the embedded kernel's data dir. */
  adminToken: string;
  stop(): Promise<void>;
}

export async function embedPlugin<E = unknown>(plugin: PluginDefinition<unknown, DepsMap, E>, options: EmbedOptions): Promise<EmbeddedPlugin<E>> {
  const { config } = buildConfig({ server: { dataDir: options.dataDir, origins: options.origins ?? [], logLevel: options.logLevel ?? 'warn', watchdog: { enabled: false } } });
  const anyPlugin = plugin as unknown as AnyPlugin;
  const kernel = await Kernel.boot({
    config,
    mode: 'embedded',
    includeCore: false,
    inlinePlugins: [{ plugin: anyPlugin, prefix: '/', config: options.config ?? {} }],
    overrides: options.overrides,
  });
  const handler = kernel.callback();
  const exports = kernel.exportsOf(anyPlugin.id) as E;
  return {
    exports,
    adminToken: kernel.adminToken,
    callback: () => handler,
    middleware: (prefix = '/') => mountAt(prefix, handler),
    upgrade: (prefix = '/') => upgradeAt(prefix, kernel.upgradeHandler()),
    stop: () => kernel.stop(),
  };
}

/** Hands requests under `prefix` to the embedded app with the prefix stripped, as koa-mount does. */
function mountAt(prefix: string, handler: http.RequestListener): Koa.Middleware {
  const base = prefix.replace(/\/+$/, '');
  return async (ctx, next) => {
    const url = ctx.req.url ?? '/';
    const matches = base === '' || url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`);
    if (!matches) return next();
    const rest = url.slice(base.length);
    ctx.req.url = rest.startsWith('/') ? rest : `/${rest}`;
    ctx.respond = false;
    await new Promise<void>((resolve) => {
      ctx.res.once('close', resolve);
      ctx.res.once('finish', resolve);
      handler(ctx.req, ctx.res);
    });
  };
}

/** Strips the host's prefix from an upgrade request and hands it to the embedded kernel. */
function upgradeAt(prefix: string, handler: (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void) {
  const base = prefix.replace(/\/+$/, '');
  return (req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const url = req.url ?? '/';
    if (!(base === '' || url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`))) return false;
    const rest = url.slice(base.length);
    req.url = rest.startsWith('/') ? rest : `/${rest}`;
    handler(req, socket, head);
    return true;
  };
}
