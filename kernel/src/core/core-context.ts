/** What the kernel's own routes need to see of the kernel. */
import type { HostInfo } from '@keel/plugin-sdk';
import type { AccountStore } from '../auth/account-store.js';
import type { EventLoopWatchdog } from '../health/watchdog.js';

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
  watchdog: EventLoopWatchdog;
  host: HostInfo;
  plugins(): LoadedPluginInfo[];
  openApi(): Record<string, unknown>;
}
