/**
 * The gateway's cap for one real path and one account (reference gateway-surfaces §1.2): the
 * built-in refusals first (with their exceptions: a usable non-deny gateway row inside the refused
 * folder, and the account's own gateway-made folders where a reachable row of its layer lists them),
 * then the longest containing usable gateway row,
 * then the gateway default under `any_except_denied`, else `deny`. A gateway row inside the data
 * folder is usable only for the account that owns the gateway-made folder it lies in.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BuiltinRefusals, ProtectedFolder } from './builtin-refusals.js';
import { decidingRow } from './policy-layer.js';
import { inside } from './real-path.js';
import type { FolderMode, PolicyLayer } from './workspace-service.js';

/** The ownership marker at the root of every gateway-made folder. */
export const MARKER_FILE = '.keel-workspace.json';

export interface Cap {
  mode: FolderMode;
  /** The built-in folder that set the cap to deny, if that is why. */
  refused?: ProtectedFolder;
}

export class GatewayCaps {
  /** `<data>/workspaces`, where gateway-made folders live (real path). */
  readonly workspacesDir: string;
  /** Owners read from markers (a marker never changes once written). */
  private readonly owners = new Map<string, string>();

  constructor(
    readonly dataDir: string,
    readonly refusals: BuiltinRefusals,
  ) {
    this.workspacesDir = path.join(dataDir, 'workspaces');
  }

  /** The gateway-made folder `real` lies in (`<data>/workspaces/<name>`), or null. */
  gatewayFolderOf(real: string): string | null {
    if (!inside(real, this.workspacesDir) || real === this.workspacesDir) return null;
    const first = path.relative(this.workspacesDir, real).split(path.sep)[0]!;
    return path.join(this.workspacesDir, first);
  }

  /** The account whose gateway-made folder `real` lies in (from its marker), or null. */
  ownerOf(real: string): string | null {
    const folder = this.gatewayFolderOf(real);
    if (!folder) return null;
    const known = this.owners.get(folder);
    if (known) return known;
    try {
      const marker = JSON.parse(readFileSync(path.join(folder, MARKER_FILE), 'utf8')) as { account?: unknown };
      if (typeof marker.account !== 'string') return null;
      this.owners.set(folder, marker.account);
      return marker.account;
    } catch {
      return null;
    }
  }

  /** Whether `real` lies in a gateway-made folder of `account` (its own plane inside the data folder). */
  inOwnPlane(real: string, account: string): boolean {
    return this.ownerOf(real) === account;
  }

  /** The built-in folder refusing `real` for `account`, or null; the account's own gateway-made folders are not refused. */
  refusal(real: string, account: string, runRoot: string | null = null): ProtectedFolder | null {
    const found = this.refusals.find(real, runRoot);
    if (found && found.kind === 'data' && this.inOwnPlane(real, account)) return null;
    return found;
  }

  /** The gateway rows `account` may use: a row inside the data folder only inside the account's own plane. */
  usableRows(gateway: PolicyLayer, account: string): PolicyLayer['folders'] {
    return gateway.folders.filter((row) => !inside(row.path, this.dataDir) || this.inOwnPlane(row.path, account));
  }

  /**
   * The cap of `real` for `account` under `gateway`. `layerRows` are the rows of the levels the
   * account's run (or effective set) uses: a reachable one lifts the data folder's refusal inside
   * the account's own gateway-made folders (its other conversation folders stay refused unless listed).
   */
  cap(gateway: PolicyLayer, real: string, account: string, runRoot: string | null = null, layerRows: PolicyLayer['folders'] = []): Cap {
    const rows = this.usableRows(gateway, account);
    const row = decidingRow(rows, real);
    const refused = this.refusals.find(real, runRoot);
    if (refused) {
      // A usable row that opens part of the data folder (a conversation folder) decides inside it;
      // nothing opens the other built-in folders, not even a row of the gateway's configuration.
      if (refused.kind === 'data' && row && row.mode !== 'deny' && inside(row.path, refused.path)) return { mode: row.mode };
      const listed = decidingRow(layerRows, real);
      const lifted = refused.kind === 'data' && this.inOwnPlane(real, account) && listed !== null && listed.mode !== 'deny';
      if (!lifted) return { mode: 'deny', refused };
    }
    if (row) return { mode: row.mode };
    return { mode: gateway.posture === 'any_except_denied' ? gateway.default_mode : 'deny' };
  }

  /**
   * `layer` as it may be shown where the data folder's place must not be told (to a non-admin, and
   * to every run): a row inside the data folder is shown relative to it (`workspaces/session-…`).
   */
  masked(layer: PolicyLayer): PolicyLayer {
    return { ...layer, folders: layer.folders.map((row) => ({ ...row, path: this.maskedPath(row.path) })) };
  }

  /** A path inside the data folder relative to it, any other as it is. */
  maskedPath(p: string): string {
    return inside(p, this.dataDir) ? path.relative(this.dataDir, p) || '.' : p;
  }

  /** Whether a real path is protected whatever the policy (data or credential folders, and the rest of the built-in list). */
  isProtected(real: string): boolean {
    return this.refusals.find(real) !== null;
  }
}
