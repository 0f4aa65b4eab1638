/**
 * Attacks on the `code` node's sandbox, through the HTTP API: every way out we could think of —
 * imports by every route, dunder access with and without getattr, frames back to the real
 * builtins, format strings, JavaScript (`js`, `pyodide_js`, Pyodide's internals), the host's
 * programs, network and files, memory bombs, endless loops, huge outputs — must end the run with
 * the node's failure record (or harmless text), never reach the host, and leave the sandbox usable.
 * The kernel allows `full_access`, so the layers under the Python checks are attacked with imports.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { codePlugin } from '@keel/plugin-code';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';

const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';
const TIMEOUT_MS = 4_000;

describe('flow: attacks on the code node sandbox', function () {
  this.timeout(600_000);
  let k: TestKernel;
  const api = gatewayRuns(() => k);
  let uploaded = 0;
  let server: http.Server;
  let hits = 0;
  let port = 0;

  /** Runs `body` as a one-node code flow in `permissions` mode; answers the run's output. */
  const attack = async (body: string, permissions = 'sandbox') => {
    const bundleId = `attack-${++uploaded}`;
    const code = node({ id: 'code', type: 'code', inputs: ['input', 'permissions'], outputs: ['output', 'success'], data: { codeBody: body, pinDefaults: { permissions } } });
    await api.uploadBundle(bundleId, { id: bundleId, nodes: [node({ id: 'start', type: 'on_flow_start', outputs: [] }), code], edges: edges('start -> code') });
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: bundleId, input_data: {} } });
    expect(res.statusCode, res.body).to.equal(200);
    const runId = res.json<{ run_id: string }>().run_id;
    const run = await until(() => api.getRun(runId), ended, 300_000);
    expect(run.status, `${body}: ${run.error}`).to.equal('completed');
    return run.output!;
  };
  const refused = async (body: string, error: string | RegExp, permissions = 'sandbox') => {
    const output = await attack(body, permissions);
    expect(output.success, `${body} → ${JSON.stringify(output)}`).to.equal(false);
    expect(output.node).to.equal('code');
    if (typeof error === 'string') expect(output.error, body).to.equal(error);
    else expect(String(output.error), body).to.match(error);
  };

  before(async () => {
    process.env.KEEL_CODE_ATTACK_SECRET = 'host-secret-value';
    server = http.createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    k = await createTestKernel({
      plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: codePlugin, config: { timeoutMs: TIMEOUT_MS, memoryLimitMb: 160, maxOutputChars: 100_000, allowFullAccess: true } }],
    });
    // Warm the sandbox so the budgets below are the code's own.
    expect(await attack('return "warm"')).to.deep.equal({ response: 'warm', success: true });
  });
  after(async () => {
    delete process.env.KEEL_CODE_ATTACK_SECRET;
    await k?.stop();
    server?.close();
  });

  it('refuses imports by every route: statements, __import__, builtins lookups, exec/eval/compile, aliases', async () => {
    await refused('import os\nreturn 1', 'Imports are not allowed');
    await refused('from os import path\nreturn 1', 'Imports are not allowed');
    await refused('def f():\n    import subprocess\nreturn 1', 'Imports are not allowed');
    await refused('return __import__("os")', "'__import__' is not allowed");
    await refused('f = __import__\nreturn f("os")', "Runtime error: name '__import__' is not defined");
    await refused('return __builtins__["__import__"]("os")', "Runtime error: '__import__'");
    await refused('return exec("import os")', "'exec' is not allowed");
    await refused('return eval("1")', "'eval' is not allowed");
    await refused('return compile("1", "x", "eval")', "'compile' is not allowed");
    await refused('e = [v for v in [eval]][0]\nreturn 1', "Runtime error: name 'eval' is not defined");
    await refused('return globals()', "Runtime error: name 'globals' is not defined");
    await refused('return open("/etc/passwd").read()', "Runtime error: name 'open' is not defined");
  });

  it('refuses dunder and introspection attributes, with or without getattr', async () => {
    await refused('return ().__class__.__base__.__subclasses__()', "Access to dunder attributes ('__subclasses__') is not allowed");
    await refused('return getattr((), "__class__")', "Runtime error: name 'getattr' is not defined");
    await refused('return vars(print)', "Runtime error: name 'vars' is not defined");
    // A generator's frame leads back through the caller to the real builtins.
    await refused('g = (x for x in [1])\nnext_frame = g.gi_frame\nreturn 1', "Access to the attribute 'gi_frame' is not allowed in the sandbox");
    await refused('def gen():\n    yield 1\nreturn gen().gi_code', "Access to the attribute 'gi_code' is not allowed in the sandbox");
    await refused('async def co():\n    return 1\nc = co()\nreturn c.cr_frame.f_back.f_globals', /Access to the attribute '(cr_frame|f_back|f_globals)' is not allowed/);
    // No class statement: the builtins have no __build_class__.
    await refused('class A:\n    pass\nreturn 1', /Runtime error: .*__build_class__/);
    // type() with three arguments makes a class, but from it nothing is reachable without dunder names.
    await refused('T = type("T", (), {})\nreturn T.mro()[1].__subclasses__()', "Access to dunder attributes ('__subclasses__') is not allowed");
  });

  it('format strings read attributes only as text: nothing callable comes out', async () => {
    const output = await attack('return "{0.__class__.__base__.__subclasses__}|{1.__globals__[__builtins__]}".format((), print)');
    expect(output.success).to.equal(true);
    expect(output.response).to.be.a('string');
    await refused('s = "{0.__class__}".format(())\nreturn s()', "Runtime error: 'str' object is not callable");
  });

  it('no JavaScript from Python, even with imports allowed (full_access): js, pyodide_js, pyodide internals', async () => {
    await refused('import js\nreturn 1', "Runtime error: module 'js' is not available in the sandbox", 'full_access');
    await refused('import pyodide_js\nreturn 1', "Runtime error: module 'pyodide_js' is not available in the sandbox", 'full_access');
    await refused('from pyodide.code import run_js\nreturn run_js("1")', "Runtime error: module 'pyodide' is not available in the sandbox", 'full_access');
    await refused('from pyodide.ffi import to_js\nreturn 1', "Runtime error: module 'pyodide' is not available in the sandbox", 'full_access');
    const modules = await attack('import sys\nreturn sorted(m for m in sys.modules if m.split(".")[0] in ("js", "pyodide_js", "pyodide", "_pyodide"))', 'full_access');
    expect(modules).to.deep.equal({ response: [], success: true });
  });

  it('no host programs, network, files or environment, even with imports allowed (full_access)', async () => {
    const marker = path.join(os.tmpdir(), `keel-code-attack-${process.pid}`);
    await refused(`import os\nreturn os.system("touch ${marker}")`, "Runtime error: the code sandbox has no access to the host module 'node:child_process'", 'full_access');
    expect(existsSync(marker)).to.equal(false);
    await refused(`import socket\ns = socket.socket()\ns.connect(("127.0.0.1", ${port}))\ns.send(b"GET / HTTP/1.0\\r\\n\\r\\n")\nreturn s.recv(100)`, /^Runtime error: /, 'full_access');
    await refused(`import urllib.request\nreturn urllib.request.urlopen("http://127.0.0.1:${port}/").read()`, /^Runtime error: /, 'full_access');
    expect(hits).to.equal(0);
    // The file system is Pyodide's own, in memory: the host's files are not there.
    await refused('return open("/etc/passwd").read()', /No such file or directory: '\/etc\/passwd'/, 'full_access');
    await refused(`return open(${JSON.stringify(path.resolve('package.json'))}).read()`, /No such file or directory/, 'full_access');
    const written = await attack(`with open("/tmp/written-by-code", "w") as f:\n    f.write("x")\nreturn 1`, 'full_access');
    expect(written).to.deep.equal({ response: 1, success: true });
    expect(existsSync('/tmp/written-by-code')).to.equal(false);
    const environ = await attack('import os\nreturn dict(os.environ)', 'full_access');
    expect(JSON.stringify(environ)).not.to.contain('host-secret-value');
    expect(JSON.stringify(environ)).not.to.contain(process.env.PATH ?? '<no PATH>');
  });

  it('memory bombs end the node with the memory budget, and the next run works', async () => {
    await refused('x = "a" * (10 ** 9)\nreturn len(x)', 'Runtime error: the code needed more memory than its budget');
    await refused('x = [0] * (10 ** 9)\nreturn 1', 'Runtime error: the code needed more memory than its budget');
    await refused('chunks = []\nwhile True:\n    chunks.append("b" * 1000000)', 'Runtime error: the code needed more memory than its budget');
    await refused('return "{:>999999999}".format(1)', 'Runtime error: the code needed more memory than its budget');
    expect(await attack('return 40 + 2')).to.deep.equal({ response: 42, success: true });
  });

  it('an endless loop is stopped at the time budget (interrupted, or its worker ended), and the next run works', async () => {
    await refused('while True:\n    pass', `Runtime error: the code ran longer than its ${TIMEOUT_MS} ms budget (the code plugin's timeoutMs) and was stopped`);
    await refused('n = 0\nfor i in range(10 ** 12):\n    n += i\nreturn n', /ran longer than its .* budget/);
    // A bare except around the loop does not keep it running (the interrupt comes again, or the worker is ended).
    await refused('while True:\n    try:\n        pass\n    except:\n        pass', /ran longer than its .* budget/);
    // A long C-level loop never checks for the interrupt: its worker is ended after the grace period.
    await refused('return sum(range(10 ** 13))', /ran longer than its .* budget/);
    expect(await attack('return "after"')).to.deep.equal({ response: 'after', success: true });
  });

  it('huge outputs and deep recursion fail the node with a sentence', async () => {
    await refused('return "x" * 200000', "Runtime error: the code returned 200002 characters of JSON, more than the 100000 the host allows (the code plugin's maxOutputChars)");
    await refused('def f(n):\n    return f(n + 1)\nreturn f(0)', /^Runtime error: maximum recursion depth exceeded/);
    expect(await attack('return "still fine"')).to.deep.equal({ response: 'still fine', success: true });
  });
});
