/** The limits of the run workspace routes (gateway-runs setting `runWorkspace`). */
export interface RunWorkspaceSettings {
  /** Entries one listing returns at most (also when `limit` asks for more, or is omitted). */
  maxListEntries: number;
  /** Directory entries one listing looks at (shown and hidden together) before it stops, truncated. */
  maxListScan: number;
  /** How many folders deep a recursive listing goes below the folder it lists. */
  maxListDepth: number;
  /** Ranges one content request may ask for at once (answered as multipart/byteranges); more get the whole file. */
  maxRanges: number;
  /** The program `POST /workspace/open` runs with the folder; null picks the platform's (`xdg-open`, `open`, `explorer`). */
  opener: string | null;
  /** How long the opener may take before it counts as failed. */
  openTimeoutMs: number;
}

export const DEFAULT_RUN_WORKSPACE_SETTINGS: RunWorkspaceSettings = {
  maxListEntries: 5000,
  maxListScan: 100_000,
  maxListDepth: 32,
  maxRanges: 16,
  opener: null,
  openTimeoutMs: 10_000,
};
