/**
 * What the catalog reads from the other parts of the relay, as small interfaces so each part can be
 * pointed at its owner: the hosted accounts and their endpoints (the account pool's `accounts` and
 * `upstreamOf(account)`), and the local command-line client's models (`cli.models()`).
 */
import type { Agent } from 'node:http';
import type { UpstreamAccount } from '../contracts.js';

/** Where one account's upstream answers, with the key and the keep-alive agent to reach it. */
export interface UpstreamEndpoint {
  baseUrl: string;
  apiKey: string;
  agent?: Agent;
}

/** The hosted accounts whose catalogs make the hosted model list. */
export interface HostedAccounts {
  accounts(): readonly UpstreamAccount[];
  endpointOf(account: UpstreamAccount): UpstreamEndpoint;
}

/** One model of the local command-line client. */
export interface CliModel {
  /** The id clients name, with its prefix (`cli:keel-tiny-chat`). */
  id: string;
  /** The id the client knows (the text after the prefix). */
  upstreamModel: string;
  /** The concrete id an alias currently resolves to; the same id for a concrete one. */
  resolvedModel: string;
  displayName?: string;
  description?: string | null;
  /** `cli_catalog`: discovered from the client; `configured`: from the setting `cli.models`. */
  source: 'cli_catalog' | 'configured';
}

/** The local command-line client's models (its discovery, cached by its owner). */
export interface CliModels {
  readonly enabled: boolean;
  models(options: { refresh: boolean }): Promise<CliModel[]>;
}

/** The prefixes that send a model id to the local command-line client (reference §1.3). */
export const CLI_PREFIX = /^cli[:-]/;
