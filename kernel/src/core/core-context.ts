/** What the kernel's own routes need to see of the kernel. */
import type { HostInfo, Watchdog } from '@keel/plugin-sdk';
import type { AccountActivity } from '../auth/account-activity.js';
import type { AccountPreferences } from '../auth/account-preferences.js';
import type { AccountStore } from '../auth/account-store.js';
import type { HostState } from '../host/host-state.js';
import type { TokenAuthService } from '../auth/auth-service.js';
import type { BrowserSessions } from '../auth/browser-sessions.js';
import type { SigninCodes } from '../auth/signin-codes.js';
import type { ServerConfig } from '../config/kernel-config.js';

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

/** Browser sign-in, activity and preferences: what the kernel keeps per account besides tokens. */
export interface SigninStores {
  sessions: BrowserSessions;
  codes: SigninCodes;
  activity: AccountActivity;
  preferences: AccountPreferences;
  settings: Pick<ServerConfig, 'signin' | 'accounts'>;
}

export interface CoreContext {
  accounts: AccountStore;
  auth: TokenAuthService;
  signin: SigninStores;
  watchdog: Watchdog;
  host: HostInfo;
  /** The fields the loaded plugins add to `/api/health`, read now. */
  health(): Record<string, unknown>;
  plugins(): LoadedPluginInfo[];
  openApi(): Record<string, unknown>;
  /** This process and the others on its data directory: `/api/gateway/host/status`, `/processes`. */
  hostState: HostState;
}
