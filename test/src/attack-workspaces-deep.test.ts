import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { bootWorkspaceGateway, call, type WorkspaceGateway } from './helpers/run-workspace.js';
import { tempDir } from './helpers/paths.js';

/**
 * Attack (issue 12): a path deeper than the real-path resolver followed (64 missing components)
 * kept a link at its start unresolved, so a write below a link leading out was judged as inside
 * the run's folder, and write_file made the missing folders through the link, outside the workspace
 * (the file itself was refused on its descriptor). Needs workspace.maxPathDepth raised (up to 256).
 */
describe('attack: a very deep path below a link leading out', function () {
  this.timeout(180_000);
  const outside = tempDir('keel-attack-deep-');
  let g: WorkspaceGateway;
  before(async () => {
    g = await bootWorkspaceGateway({ workspace: { maxPathDepth: 200 } });
  });
  after(async () => {
    await g?.stop();
    outside.remove();
  });

  it('judges the whole real path: no folder is made outside, the write is refused', async () => {
    const deep = `out/${'d/'.repeat(80)}x.txt`;
    const runId = await g.startTools(g.bob, [call('w', 'write_file', { path: deep, content: 'x' }), call('r', 'read_file', { path: deep })], {}, true);
    await g.waitFor(g.bob, runId, ['waiting']);
    const folder = await g.folderOf(g.bob, runId);
    mkdirSync(folder, { recursive: true });
    symlinkSync(outside.dir, path.join(folder, 'out'));
    const results = await g.resumeAndFinish(g.bob, runId);
    expect(results.get('w')).to.deep.include({ success: false });
    expect(results.get('w')!.error).to.match(/not one of this run's workspaces/);
    expect(existsSync(path.join(outside.dir, 'd'))).to.equal(false);
  });
});
