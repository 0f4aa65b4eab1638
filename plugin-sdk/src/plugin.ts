/**
 * The plugin contract: a plugin declares what it needs and offers; the host decides when and
 * where it runs. See `definePlugin`.
 */
import type { PluginCommand } from './commands.js';
import type { ErrorFormatter } from './errors.js';
import type { SocketRoute } from './sockets.js';
import type { AnyRoute } from './routes.js';
import type { Schema } from './schema.js';
import type { DepsMap, Provides, ResolvedDeps } from './tokens.js';

export interface SetupContext<C, D extends DepsMap> {
  /** The plugin's config, validated against `configSchema` with defaults applied. */
  config: C;
  /** Resolved dependencies, typed by the tokens declared in `deps`. */
  deps: ResolvedDeps<D>;
  /** Aborts when setup times out or the kernel stops; long setup work should honour it. */
  signal: AbortSignal;
  /** The prefix the host mounts this plugin's default routes under (`/api/gateway`, `/v1`, ...). */
  prefix: string;
  /** Every mount point's resolved prefix, by name (`default` included). */
  mounts: Record<string, string>;
  /** Directory that relative paths in the plugin's config resolve against (the config file's folder). */
  baseDir: string;
}

/**
 * A named place where some of a plugin's routes mount, with its own default prefix and error
 * shape: an inference plugin serves `/api/gateway/discovery/...` with `{detail}` errors and
 * `/v1/...` with OpenAI errors. Routes choose one with `mount`; the config may move each prefix.
 */
export interface MountPoint {
  prefix: string;
  errorFormat?: ErrorFormatter;
  /**
   * Unmatched paths under the prefix need a valid credential: without one they answer 401 before 404
   * or 405 (see `PluginDefinition.guardUnmatched`). `true`: the kernel's bearer token; a string: the
   * name of one of this plugin's authenticators (a route's `auth`), which checks them instead.
   */
  guardUnmatched?: boolean | string;
}

/**
 * A flag the plugin adds to `keel serve`, setting one key of its config for that run
 * (`--no-indexer` → `{ indexer: false }`). A boolean flag also takes the `--no-<name>` form.
 */
export interface ServeFlag {
  type: 'boolean' | 'string';
  /** The top-level key of the plugin's config the flag sets (validated with the rest of the config). */
  config: string;
  /** One line for `keel --help`. */
  summary: string;
}

/** A page a person opens in a browser; the kernel's landing page `/` links to it. */
export interface PluginPage {
  /** Relative to the plugin's default mount prefix (`/ui/` under `/hub` is `/hub/ui/`). */
  path: string;
  title: string;
}

export interface PluginInstance<E> {
  routes?: AnyRoute[];
  /** Browser pages among the routes, listed with their titles on the landing page `/`. */
  pages?: PluginPage[];
  /** WebSocket endpoints: an HTTP upgrade on one of these paths is handed to the plugin. */
  sockets?: SocketRoute[];
  /**
   * What the plugin offers others: the value of its `provides` token, or, when `provides` is a
   * record of tokens, a record with the value of each token under the same name.
   */
  exports?: E;
  /**
   * Fields this plugin adds to the public `GET /api/health` body, each read per request
   * (`{ indexer: () => 'idle' }`). Names are unique across plugins and not `status` or `watchdog`.
   */
  health?: Record<string, () => unknown>;
  /** Called after every plugin is set up and mounted, before the listener opens. */
  start?(): Promise<void> | void;
  /** Called once at shutdown, in reverse order; must be safe to call when start never ran. */
  stop?(): Promise<void> | void;
}

export interface PluginDefinition<C = unknown, D extends DepsMap = DepsMap, E = unknown> {
  /** kebab-case; the log field, storage namespace and config key. */
  id: string;
  version: string;
  /** Semver range of `@keel/plugin-sdk` this plugin was written for (checked at load). */
  sdk: string;
  description?: string;
  /** JSON schema of the plugin's config; defaults are applied, every error is reported at once. */
  configSchema?: Schema<C>;
  deps?: D;
  /**
   * What other plugins may depend on: one token, whose value is `exports` from setup, or a record
   * of tokens (`{ runs: runsToken, nodeTypes: nodeTypesToken }`), each resolving to the entry of
   * `exports` with the same name.
   */
  provides?: Provides<E>;
  /** Where routes mount unless the config says otherwise (default `/`). */
  defaultPrefix?: string;
  /** Error response shape for this plugin's routes (default: the gateway `{detail}` shape). */
  errorFormat?: ErrorFormatter;
  /**
   * Unmatched paths under the default prefix need a valid bearer token: without one they answer 401
   * before 404 or 405 (also spelled with double slashes, dot segments or encoded slashes), so an
   * anonymous caller cannot map which routes exist. Set it on prefixes whose routes need a token.
   * `true` asks for the kernel's bearer token; a string names one of this plugin's authenticators
   * (`Authenticator.name` of a route's `auth`: the relay's token), which then guards them, with its
   * own refusals, throttling and side effects, exactly as on its routes.
   */
  guardUnmatched?: boolean | string;
  /** Further mount points besides `default` (which is `defaultPrefix` with `errorFormat` and `guardUnmatched`). */
  mounts?: Record<string, MountPoint>;
  /**
   * Commands this plugin adds to `keel`, by name (`hub` → `keel hub ...`): kebab-case, unique among
   * the config's plugins and the kernel's own commands. Their modules load only when run.
   */
  commands?: Record<string, PluginCommand<E>>;
  /** Flags this plugin adds to `keel serve`, by name (kebab-case, unique among the config's plugins and the kernel's own flags). */
  serveFlags?: Record<string, ServeFlag>;
  /**
   * Request headers this plugin's clients send besides the kernel's (authorization, content-type,
   * last-event-id, x-request-id): browsers on an allowed origin are told they may send them
   * (CORS `Access-Control-Allow-Headers`).
   */
  headers?: string[];
  setup(ctx: SetupContext<C, D>): Promise<PluginInstance<E>> | PluginInstance<E>;
}

/** A plugin as the kernel handles it, its generic types erased. */
export type AnyPlugin = PluginDefinition<unknown, DepsMap, unknown> & { readonly __keelPlugin: true };

/**
 * Defines a plugin. The result is a plain frozen value; export it (default or named) from the
 * plugin package so the kernel can load it by package name or by path.
 */
export function definePlugin<C = Record<string, never>, D extends DepsMap = Record<string, never>, E = undefined>(
  definition: PluginDefinition<C, D, E>,
): PluginDefinition<C, D, E> & { readonly __keelPlugin: true } {
  return Object.freeze({ ...definition, __keelPlugin: true as const });
}

export function isPlugin(value: unknown): value is AnyPlugin {
  return typeof value === 'object' && value !== null && (value as { __keelPlugin?: unknown }).__keelPlugin === true;
}
