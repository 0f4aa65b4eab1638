/** The folders one plugin gets under the data directory. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Paths } from '@keel/plugin-sdk';

export class PluginPaths implements Paths {
  readonly dataDir: string;
  readonly blobsDir: string;
  readonly tmpDir: string;
  private readonly ownDir: string;
  /** Folders this instance made (or found): a run start asks for its account's folder every time, one mkdir each. */
  private readonly ensured = new Set<string>();

  constructor(dataDir: string, pluginId: string) {
    this.dataDir = dataDir;
    this.ownDir = path.join(dataDir, 'plugins', pluginId);
    this.blobsDir = path.join(dataDir, 'blobs');
    this.tmpDir = path.join(dataDir, 'tmp');
  }

  get pluginDir(): string {
    return this.ensure(this.ownDir);
  }

  forAccount(account: string): string {
    if (!/^[A-Za-z0-9._:-]+$/.test(account) || account.includes('..')) throw new Error(`unsafe account id for a folder name: '${account}'`);
    return this.ensure(path.join(this.ownDir, 'accounts', account.replace(/:/g, '__')));
  }

  private ensure(dir: string): string {
    if (this.ensured.has(dir)) return dir;
    ensureDir(dir);
    this.ensured.add(dir);
    return dir;
  }
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
