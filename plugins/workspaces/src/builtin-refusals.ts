/**
 * The folders no run's file tool may reach, whatever the policy says (reference gateway-surfaces
 * §1.4, widened): the gateway's data directory, the server OS user's credential folders and home
 * configuration (every hidden entry directly in its home folder), the Keel installation (the
 * server's own code) and the kernel's views of processes and devices (`/proc`, `/sys`, `/dev`).
 * `/proc` matters beyond devices: `/proc/self/environ` shows the environment the server started
 * with, secrets included, whatever the server later removed from `process.env`.
 */
import os from 'node:os';
import path from 'node:path';
import { keelInstallFolders } from './install-folders.js';
import { inside, realPathSync } from './real-path.js';

/** The credential folders of the server's OS user that are never reachable (reference §1.4). */
export const CREDENTIAL_FOLDERS = ['.ssh', '.aws', '.gnupg', '.config/gcloud', '.kube', 'Library/Keychains', '.abstractgateway', '.abstractcode', '.abstractassistant', '.abstractcontinuum', '.abstractcore'];

/** The kernel's views of processes, devices and drivers. */
export const SYSTEM_FOLDERS = ['/proc', '/sys', '/dev'];

export type ProtectedKind = 'data' | 'credentials' | 'home_config' | 'install' | 'system';

/** What each kind is called in a refusal. */
export const PROTECTED_KIND_NAMES: Record<ProtectedKind, string> = {
  data: "the gateway's data directory",
  credentials: 'a credential directory',
  home_config: "the server user's home configuration",
  install: 'the Keel installation, the server\'s own code',
  system: 'a system folder of processes and devices',
};

export interface ProtectedFolder {
  path: string;
  kind: ProtectedKind;
}

export class BuiltinRefusals {
  private readonly home: string;
  private readonly fixed: ProtectedFolder[];

  /** Resolved once at setup (real paths); `home` and `install` are injectable for tests of this rule. */
  constructor(dataDirReal: string, home: string = os.homedir(), install: string[] = keelInstallFolders()) {
    this.home = realPathSync(home);
    this.fixed = [
      { path: dataDirReal, kind: 'data' },
      ...SYSTEM_FOLDERS.map((f) => ({ path: realPathSync(f), kind: 'system' as const })),
      ...install.map((f) => ({ path: realPathSync(f), kind: 'install' as const })),
      ...CREDENTIAL_FOLDERS.map((f) => ({ path: realPathSync(path.join(this.home, f)), kind: 'credentials' as const })),
    ];
  }

  /** The protected folder `real` lies in, if any; a credential folder containing the run's root is dropped (it would deny the run's own folder). */
  find(real: string, runRoot: string | null = null): ProtectedFolder | null {
    for (const folder of this.fixed) {
      if (folder.kind === 'credentials' && runRoot !== null && inside(runRoot, folder.path)) continue;
      if (inside(real, folder.path)) return folder;
    }
    // Home configuration: any hidden file or folder directly in the home folder (~/.config, ~/.bashrc, ~/.npmrc, …).
    if (inside(real, this.home) && real !== this.home) {
      const first = path.relative(this.home, real).split(path.sep)[0]!;
      if (first.startsWith('.')) return { path: path.join(this.home, first), kind: 'home_config' };
    }
    return null;
  }

  /** Every fixed folder, for the README and tests. */
  list(): ProtectedFolder[] {
    return [...this.fixed];
  }
}
