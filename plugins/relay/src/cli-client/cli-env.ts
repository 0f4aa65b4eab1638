/**
 * The environment a local-client process gets (reference §4.3): an allow-list, never the relay's own
 * environment, so the relay's secrets (its token, upstream keys) never reach the child. API-key and
 * alternative-backend variables (`*_API_KEY`, `*_AUTH_TOKEN`, `*_BASE_URL`, `CLAUDE_CODE_USE_*`) stay
 * out too unless `cli.stripApiKeyEnv` is false (a client meant to run on a key).
 */

/** Names passed through as they are. */
const ALLOWED = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TZ',
  'TMPDIR', 'TMP', 'TEMP',
  'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy',
  // The client's own config dir, OAuth token and traffic-reduction switch.
  'CLAUDE_CONFIG_DIR', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
  // Windows needs these to start any process.
  'SYSTEMROOT', 'COMSPEC', 'PATHEXT', 'WINDIR', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA',
]);

/** Locale variables (`LC_ALL`, `LC_CTYPE`, ...). */
const LOCALE = /^LC_[A-Z_]+$/;

/** An API key or another backend: passed only when `stripApiKeyEnv` is false. */
const API_KEY_LIKE = /(API_KEY|APIKEY|AUTH_TOKEN|BASE_URL)$|^CLAUDE_CODE_USE_/;

export function childEnv(parent: NodeJS.ProcessEnv, stripApiKeyEnv: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (ALLOWED.has(name) || LOCALE.test(name) || (!stripApiKeyEnv && API_KEY_LIKE.test(name))) env[name] = value;
  }
  return env;
}
