/**
 * Attack (issue 13): the code worker's JavaScript was open to Python that has imports. Through
 * `ctypes`, Emscripten's `emscripten_run_script_string` evaluates text in the worker, and from there
 * `process.binding('fs')` read host files and `import('node:child_process')` ran host programs: the
 * module loader guard (README "Isolation", layer 3) only watched `require`. This is the layer that
 * must hold when Python gets past the sandbox's checks, so it is attacked with `full_access`.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';

const RUN_SCRIPT = 'import ctypes\nrun = ctypes.CDLL(None).emscripten_run_script_string\nrun.restype = ctypes.c_char_p\n';

describe("attack i13: Python with imports reaches the code worker's JavaScript and through it the host", function () {
  this.timeout(600_000);
  let k: TestKernel;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'keel-attack-js-'));
  const secret = path.join(dir, 'secret.txt');
  const marker = path.join(dir, 'ran');

  const simulate = async (code: string) => {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/visualflows/code/simulate', token: k.adminToken, payload: { code, permissions: 'full_access' } });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json<{ success: boolean; output: unknown; error: string | null }>();
  };

  before(async () => {
    writeFileSync(secret, 'host-file-secret-7741');
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: 20_000, allowFullAccess: true } }] });
  });
  after(async () => {
    await k?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('emscripten_run_script evaluates no JavaScript: no host file through process.binding, no program through import()', async () => {
    const read = await simulate(`${RUN_SCRIPT}def transform(_input):\n    return run(b"process.binding('fs').readFileUtf8(${JSON.stringify(secret).replace(/"/g, "'")}, 0)").decode()`);
    expect(JSON.stringify(read)).not.to.contain('host-file-secret-7741');
    expect(read).to.deep.include({ success: false, error: 'Runtime error: the code sandbox has no access to JavaScript' });
    const spawn = await simulate(`${RUN_SCRIPT}def transform(_input):\n    return run(b"import('node:child_process').then(function (cp) { cp.execSync('touch ${marker}') }); 'queued'").decode()`);
    expect(spawn).to.deep.include({ success: false, error: 'Runtime error: the code sandbox has no access to JavaScript' });
    expect(existsSync(marker)).to.equal(false);
  });

  it('the sandbox still runs code afterwards, the standard library included', async () => {
    const answer = await simulate('import hashlib, decimal\ndef transform(_input):\n    return [hashlib.sha256(b"x").hexdigest()[:8], str(decimal.Decimal("1.1") + 1)]');
    expect(answer).to.deep.include({ success: true, output: ['2d711642', '2.1'] });
  });
});
