/**
 * `@keel/plugin-sdk/testing`: boot a real kernel around the plugins under test, on a temporary
 * data directory, with the same boot path `keel serve` uses (real LMDB, real worker pools).
 *
 * The SDK never imports the kernel statically (plugins depend on the SDK only); the harness loads
 * `@keel/kernel` when a test asks for it, so install it as a dev dependency next to the SDK.
 */
import type { AnyPlugin } from '../plugin.js';
import type { Token } from '../tokens.js';

export interface TestPluginEntry {
  plugin: AnyPlugin | { readonly __keelPlugin: true };
  /** Mount prefix (default: the plugin's `defaultPrefix`, else `/`). */
  prefix?: string;
  /** Prefixes of the plugin's other mount points, by name. */
  mounts?: Record<string, string>;
  config?: Record<string, unknown>;
}

export interface TestKernelOptions {
  /** Plugin values, or entries with a prefix and config. */
  plugins?: Array<TestPluginEntry['plugin'] | TestPluginEntry>;
  /** A kernel config object as a config file would hold it (merged with `plugins`). */
  config?: Record<string, unknown>;
  /** Replaces what a token resolves to, for every plugin (a fake clock, a stub service in a unit test). */
  overrides?: Array<[Token<unknown>, unknown]>;
  /** Use this data directory instead of a fresh temporary one (it is then kept after `stop`). */
  dataDir?: string;
  /** The base directory config-relative paths resolve against (default: the process cwd). */
  baseDir?: string;
}

export interface InjectRequest {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; any other value as JSON. */
  payload?: unknown;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** The client address the request seems to come from (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface InjectResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  rawPayload: Buffer;
  json<T = unknown>(): T;
}

export interface TestKernel {
  readonly dataDir: string;
  /** The bootstrap admin token of this kernel. */
  readonly adminToken: string;
  /** Sends a request through the full middleware stack without opening a socket. */
  inject(request: InjectRequest): Promise<InjectResponse>;
  /** Opens a real listener on 127.0.0.1 (a free port) for SSE, WebSocket and client tests. */
  listen(): Promise<{ url: string; port: number }>;
  /** The value a token resolves to (a plugin's `exports`, a core service). */
  resolve<T>(token: Token<T>): T;
  /** Stops the kernel (idempotent) and removes the temporary data directory. */
  stop(): Promise<void>;
}

/** The function `@keel/kernel` exposes for this harness. */
export type BootTestKernel = (options: TestKernelOptions) => Promise<TestKernel>;

const KERNEL_TESTING_MODULE = '@keel/kernel/testing';

export async function createTestKernel(options: TestKernelOptions = {}): Promise<TestKernel> {
  let mod: { bootTestKernel: BootTestKernel };
  try {
    mod = (await import(KERNEL_TESTING_MODULE)) as { bootTestKernel: BootTestKernel };
  } catch (err) {
    throw new Error(`createTestKernel needs @keel/kernel installed next to @keel/plugin-sdk (npm i -D @keel/kernel): ${String(err)}`, { cause: err });
  }
  return mod.bootTestKernel(options);
}
