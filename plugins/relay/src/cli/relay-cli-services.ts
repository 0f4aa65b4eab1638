/**
 * What `keel relay ...` reads of a relay set up on the data directory (the plugin's `exports.cli`):
 * the settings, the token, where things are, and the status fragments the other parts provide.
 * Nothing here talks to a running relay; the commands that need one call it over HTTP.
 */
import type { RelayConfig } from '../config.js';
import type { StatusParts } from '../contracts.js';
import type { RelayToken } from '../gate/relay-token.js';

export interface RelayCliServices {
  config: RelayConfig;
  token: RelayToken;
  /** The relay's mount prefix (`/v1`). */
  prefix: string;
  pluginDir: string;
  logsDir: string;
  parts: StatusParts;
  /** Runs the local client's readiness check (a subprocess, for `doctor`) and answers its status block; absent when the client is off. */
  probeCli?: () => Promise<Record<string, unknown>>;
}

export interface RelayExports {
  cli: RelayCliServices;
}
