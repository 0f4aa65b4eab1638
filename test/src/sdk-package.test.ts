/**
 * What `@keel/plugin-sdk` declares in its package.json is what it needs: the modules its compiled
 * code imports are its `dependencies`, and a third-party plugin that installs the SDK (with its
 * peers) compiles against the SDK's public types, koa, lmdb, piscina and ws types included.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { repoRoot, tempDir } from './helpers/paths.js';

const sdkDir = path.join(repoRoot, 'plugin-sdk');
const manifest = JSON.parse(readFileSync(path.join(sdkDir, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

/** Every `.js` file under `dir`. */
function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The packages the SDK's compiled code loads at run time (bare specifiers, `node:` built-ins left out). */
function runtimeImports(): Set<string> {
  const found = new Set<string>();
  const specifier = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^'.][^']*)'|import\('([^'.][^']*)'\)/g;
  for (const file of jsFiles(path.join(sdkDir, 'dist'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(specifier)) {
      const spec = (m[1] ?? m[2])!;
      if (spec.startsWith('node:')) continue;
      found.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return found;
}

describe('@keel/plugin-sdk package: dependencies as the code uses them', function () {
  this.timeout(120_000);

  it('lists as runtime dependencies exactly the packages its compiled code imports besides its peers (plus type packages for its public types)', () => {
    // The harness loads @keel/kernel only when a test asks for it: a dev dependency of the plugin, not of the SDK.
    // A peer the host brings (lmdb, loaded by the `worker` entry a plugin's worker thread imports) is not a dependency.
    const peers = Object.keys(manifest.peerDependencies ?? {});
    const imported = [...runtimeImports()].filter((p) => p !== '@keel/kernel' && !peers.includes(p)).sort();
    // Packages of types only: `@types/*`, and json-schema-to-ts (the types `defineSchema` derives).
    const typesOnly = (p: string) => p.startsWith('@types/') || p === 'json-schema-to-ts';
    const declared = Object.keys(manifest.dependencies).filter((p) => !typesOnly(p)).sort();
    expect(declared).to.deep.equal(imported);
  });

  it('keeps koa, lmdb and piscina (whose types its public types wrap) as peers, not runtime dependencies, and ws as types only', () => {
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).to.deep.equal(['koa', 'lmdb', 'piscina']);
    for (const name of ['koa', 'lmdb', 'piscina', 'ws']) expect(manifest.dependencies, name).not.to.have.property(name);
    expect(manifest.dependencies).to.include.keys('@types/koa', '@types/ws');
  });

  /**
   * Compiles a small third-party plugin in a folder of its own whose node_modules holds a copy of the
   * SDK (as a registry install puts it, so its imports resolve there, not in the workspace) and
   * `installed` beside it; answers tsc's complaints ('' when it compiles).
   */
  async function compileThirdPartyPlugin(installed: string[]): Promise<string> {
    const tmp = tempDir('keel-sdk-consumer-');
    try {
      const modules = path.join(tmp.dir, 'node_modules');
      const sdkCopy = path.join(modules, '@keel', 'plugin-sdk');
      mkdirSync(sdkCopy, { recursive: true });
      cpSync(path.join(sdkDir, 'dist'), path.join(sdkCopy, 'dist'), { recursive: true, filter: (f) => !f.endsWith('.map') });
      cpSync(path.join(sdkDir, 'package.json'), path.join(sdkCopy, 'package.json'));
      for (const name of installed) {
        mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
        symlinkSync(path.join(repoRoot, 'node_modules', name), path.join(modules, name), 'dir');
      }
      writeFileSync(path.join(tmp.dir, 'package.json'), JSON.stringify({ name: 'third-party-plugin', type: 'module' }));
      writeFileSync(path.join(tmp.dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] },
        include: ['plugin.ts'],
      }));
      writeFileSync(path.join(tmp.dir, 'plugin.ts'), [
        "import { core, definePlugin, route, type SocketConnection } from '@keel/plugin-sdk';",
        '// Each wrapped library type is real: an unresolved module would make it `any` and leave the directive unused.',
        'export function onSocket(conn: SocketConnection): void {',
        "  // @ts-expect-error ws's WebSocket has no such method",
        '  conn.ws.noSuchMethod();',
        '}',
        'export default definePlugin({',
        "  id: 'third-party', version: '0.1.0', sdk: '^1.0.0',",
        '  deps: { storage: core.storage, workers: core.workers, log: core.logger },',
        '  setup({ deps }) {',
        "    const db = deps.storage.openDB<{ n: number }, string>('counts');",
        "    const n: number | undefined = db.get('a')?.n;",
        "    // @ts-expect-error lmdb's Database has no such method",
        '    db.noSuchMethod();',
        "    const pool = deps.workers.get('x');",
        "    // @ts-expect-error piscina's Piscina has no such method",
        '    pool?.noSuchMethod();',
        "    deps.log.info('ready', { n, threads: pool?.threads.length ?? 0 });",
        "    return { routes: [route({ method: 'GET', path: '/n', auth: 'none', handler: (ctx) => {",
        "      // @ts-expect-error koa's Context has a numeric status (it allows any other key, so a wrong type tells)",
        '      const status: string = ctx.koa.status;',
        '      return { n, status };',
        '    } })] };',
        '  },',
        '});',
      ].join('\n'));
      const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
      return await promisify(execFile)(process.execPath, [tsc, '-p', tmp.dir]).then(() => '', (err: { stdout?: string }) => err.stdout ?? String(err));
    } finally {
      tmp.remove();
    }
  }

  const declared = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies ?? {})];

  it('lets a third-party plugin that installs the SDK and its peers compile against its types (koa, lmdb, piscina, ws included)', async () => {
    expect(await compileThirdPartyPlugin([...declared, '@types/node'])).to.equal('');
  });

  it('(the check sees a missing peer: without lmdb the plugin does not compile)', async () => {
    expect(await compileThirdPartyPlugin([...declared.filter((n) => n !== 'lmdb'), '@types/node'])).to.match(/plugin\.ts\(\d+,\d+\): error TS2578: Unused '@ts-expect-error' directive/);
  });
});
