/** The `docs` settings of gateway-runs (README "Docs questions"): limits of the corpus route and where docs-qa is published. */
export interface DocsSettings {
  /** Loopback URL of each companion app that runs on this machine (`http://127.0.0.1:<port>`); an app without one is not running. */
  apps: Partial<Record<string, string>>;
  /** How long fetching an app's `/llms.txt` may take, answer and body. */
  appFetchTimeoutMs: number;
  /** Largest app `llms.txt` read. */
  maxAppCorpusBytes: number;
  /** Largest gateway corpus file read (`KEEL_DOCS_CORPUS`, the checkout's or the packaged `llms.txt`). */
  maxCorpusBytes: number;
  /** Tenants whose workflow catalog gets the shipped docs-qa versions at boot. */
  catalogTenants: string[];
}

export const DEFAULT_DOCS_SETTINGS: DocsSettings = {
  apps: {},
  appFetchTimeoutMs: 5000,
  maxAppCorpusBytes: 2 * 1024 * 1024,
  maxCorpusBytes: 8 * 1024 * 1024,
  catalogTenants: ['default'],
};
