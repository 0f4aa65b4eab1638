/** What the kernel's own routes need to see of the kernel. */
import type { HostInfo, Watchdog } from '@keel/plugin-sdk';
import type { AccountStore } from '../auth/account-store.js';
import type { HostState } from '../host/host-state.js';

export interface LoadedPluginInfo {
  id: string;
  version: string;
  description: string;
  source: string;
  prefix: string;
  mounts: Record<string, string>;
  /** The browser pages the plugin declares, with their full paths. */
  pages: Array<{ path: string; title: string }>;
}

export interface CoreContext {
  accounts: AccountStore;
  watchdog: Watchdog;
  host: HostInfo;
  /** The fields the loaded plugins add to `/api/health`, read now. */
  health(): Record<string, unknown>;
  plugins(): LoadedPluginInfo[];
  openApi(): Record<string, unknown>;
  /** This process and the others on its data directory: `/api/gateway/host/status`, `/processes`. */
  hostState: HostState;
}
