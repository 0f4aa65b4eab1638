/**
 * Where a run works, as the run workspace routes see it: the real path of its root folder, and the
 * judgement of every real path below it. The policy is re-applied at every call (an admin's
 * tightening applies at once): a path is blocked when the run may not read it (an operator or run
 * deny row, a built-in refusal), and a data or credential folder is always blocked unless the root
 * itself lies in one (a gateway-made run or conversation folder inside the data folder).
 */
import type { Stats } from 'node:fs';
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { forbidden, notFound } from '@keel/plugin-sdk';
import type { RunWorkspace, WorkspaceService } from '@keel/plugin-workspaces';
import { inside, MARKER_FILE } from '@keel/plugin-workspaces';


/** Errors that mean "nothing there to show" (the path is missing, not a folder on the way, a link loop). */
const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG', 'EACCES', 'EPERM']);

export function isMissing(err: unknown): boolean {
  return MISSING.has((err as NodeJS.ErrnoException).code ?? '');
}

export class WorkspacePlace {
  // The marker at the root of a gateway-made folder (MARKER_FILE) is never listed, never served.
  private constructor(
    private readonly service: WorkspaceService,
    readonly ws: RunWorkspace,
    readonly account: string,
    /** The real path of the run's root folder. */
    readonly root: string,
    private readonly marker: { dev: number; ino: number } | null,
    private readonly rootProtected: boolean,
  ) {}

  /** The place of a run's workspace; null when its folder does not exist (any more). */
  static async open(service: WorkspaceService, ws: RunWorkspace, account: string): Promise<WorkspacePlace | null> {
    let root: string;
    try {
      root = await realpath(await service.rootOf(ws));
      if (!(await lstat(root)).isDirectory()) return null;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    const marker = await lstat(path.join(root, MARKER_FILE)).then((st) => ({ dev: st.dev, ino: st.ino }), () => null);
    return new WorkspacePlace(service, ws, account, root, marker, service.isProtected(root));
  }

  /** The marker file, by identity (a link or a second name of it is the marker too). */
  isMarker(st: Stats): boolean {
    return this.marker !== null && st.dev === this.marker.dev && st.ino === this.marker.ino;
  }

  /** Whether the run may not see this real path (inside the root) under the current policy. */
  async blocked(real: string): Promise<boolean> {
    if (!this.rootProtected && this.service.isProtected(real)) return true;
    const access = await this.service.check(this.ws, this.account, real, 'ro');
    return !access.ok;
  }

  /** The path relative to the root, `/`-separated ('' for the root). */
  relative(real: string): string {
    return path.relative(this.root, real).split(path.sep).join('/');
  }

  /**
   * Resolves request segments to a real path inside the root: 404 when missing, blocked or the
   * marker (existence not told), 403 when it leads outside the folder (a link).
   */
  async locate(segments: string[], shown: string): Promise<{ real: string; stats: Stats }> {
    const gone = () => notFound(`${shown || '.'} does not exist in the run's workspace folder.`, { code: 'not_found' });
    let real: string;
    let stats: Stats;
    try {
      real = await realpath(path.join(this.root, ...segments));
      stats = await lstat(real);
    } catch (err) {
      if (isMissing(err)) throw gone();
      throw err;
    }
    if (!inside(real, this.root)) throw forbidden(`${shown} leads outside the run's workspace folder (a link); it is not shown.`, { code: 'outside_workspace' });
    if (this.isMarker(stats) || (await this.blocked(real))) throw gone();
    return { real, stats };
  }
}
