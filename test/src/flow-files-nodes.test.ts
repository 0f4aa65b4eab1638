/**
 * The `write_file` and `write_pdf` nodes (runtime-nodes §9.2–9.3 and the §11 checklist line) through
 * the HTTP API: flows built here, run by a non-admin account whose workspace policy confines it to
 * its run folder; files read back through `/runs/{id}/workspace/content`, announced files through
 * the artifacts plugin; every way out of the folder refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { gatewayRunsPlugin } from '@keel/plugin-gateway-runs';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { artifactsPlugin } from '@keel/plugin-artifacts';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { bundle, edges, multipart, node } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';

/** pdf.js's own copies of the standard fonts (it reads their metrics to lay out text). */
const STANDARD_FONTS = `${path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'))}/standard_fonts/`;
const ended = (r: RunRecord) => r.status !== 'running' && r.status !== 'waiting';

/** start(path, content, title) → <type> → end(<its pins>). */
function writeFlow(type: 'write_file' | 'write_pdf', withEnd = true) {
  const pins = type === 'write_file' ? ['bytes', 'file_path'] : ['bytes', 'file_path', 'sha256', 'content_type', 'renderer'];
  const inputs = type === 'write_file' ? ['file_path', 'content'] : ['file_path', 'content', 'title'];
  return {
    id: type,
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: inputs }),
      node({ id: 'write', type, inputs, outputs: pins }),
      ...(withEnd ? [node({ id: 'end', type: 'on_flow_end', inputs: pins })] : []),
    ],
    edges: edges('start -> write', ...(withEnd ? ['write -> end', ...pins.map((p) => `write.${p} -> end.${p}`)] : []), ...inputs.map((p) => `start.${p} -> write.${p}`)),
  };
}

/** The text of every page of a PDF, and its title. */
async function pdfText(bytes: Buffer): Promise<{ text: string; title: unknown; pages: number }> {
  const doc = await getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, standardFontDataUrl: STANDARD_FONTS }).promise;
  const parts: string[] = [];
  for (let i = 1; i <= doc.numPages; i++) {
    const page = await doc.getPage(i);
    const content = await page.getTextContent();
    parts.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  const meta = await doc.getMetadata();
  const title = (meta.info as Record<string, unknown>).Title;
  const pages = doc.numPages;
  await doc.destroy();
  return { text: parts.join('\n'), title, pages };
}

describe('flow: write_file and write_pdf nodes', function () {
  this.timeout(300_000);
  let k: TestKernel;
  let bob = '';
  const outside = path.join(os.tmpdir(), `keel-files-outside-${process.pid}`);

  const as = (token: string) => ({
    run: async (bundleId: string, input: Record<string, unknown>, sessionId?: string) => {
      const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: bundleId, input_data: input, ...(sessionId ? { session_id: sessionId } : {}) } });
      expect(res.statusCode, res.body).to.equal(200);
      const runId = res.json<{ run_id: string }>().run_id;
      const run = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}`, token })).json<RunRecord>(), ended, 120_000);
      return { runId, run };
    },
    file: (runId: string, rel: string) => k.inject({ url: `/api/gateway/runs/${runId}/workspace/content?path=${encodeURIComponent(rel)}`, token }),
    ledger: async (runId: string) => (await k.inject({ url: `/api/gateway/runs/${runId}/ledger?limit=500`, token })).json<{ items: LedgerItem[] }>().items,
  });

  before(async () => {
    k = await createTestKernel({ plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, artifactsPlugin] });
    const created = await k.inject({ method: 'POST', url: '/api/gateway/admin/users', token: k.adminToken, payload: { account: 'bob' } });
    expect(created.statusCode, created.body).to.equal(201);
    bob = created.json<{ token: { token: string } }>().token.token;
    for (const [id, flow] of [['wf', writeFlow('write_file')], ['wp', writeFlow('write_pdf')], ['wf-last', writeFlow('write_file', false)]] as const) {
      const body = multipart({}, { name: `${id}.flow`, bytes: bundle(id, '1.0.0', flow) });
      const res = await k.inject({ method: 'POST', url: '/api/gateway/bundles/upload', token: bob, payload: body.payload, headers: body.headers });
      expect(res.statusCode, res.body).to.equal(201);
    }
    mkdirSync(outside, { recursive: true });
  });
  after(async () => {
    await k?.stop();
    rmSync(outside, { recursive: true, force: true });
  });

  it('checklist: object content → 2-space JSON, bytes = UTF-8 length; no ledger record for the node', async () => {
    const api = as(bob);
    const content = { name: 'Zoë', list: [1, 2] };
    const { runId, run } = await api.run('wf', { file_path: 'out/data.txt', content });
    expect(run.status, String(run.error)).to.equal('completed');
    const text = JSON.stringify(content, null, 2);
    expect(run.output).to.deep.include({ bytes: Buffer.byteLength(text, 'utf8'), file_path: 'out/data.txt', success: true });
    expect((await api.file(runId, 'out/data.txt')).body).to.equal(text);
    expect((await api.ledger(runId)).filter((r) => r.node_id === 'write' && r.effect?.type === 'write_file')).to.deep.equal([]);
  });

  it('writes text as is, null as an empty file, scalars as Python str(), and .json as indented JSON with a newline', async () => {
    const api = as(bob);
    const cases: Array<[string, unknown, string]> = [
      ['notes/a.md', '# Title\nnon-ASCII ✓', '# Title\nnon-ASCII ✓'],
      ['empty.txt', null, ''],
      ['flag.txt', true, 'True'],
      ['n.txt', 42, '42'],
      ['doc.json', '{"b": [1, {"c": "é"}]}', '{\n  "b": [\n    1,\n    {\n      "c": "é"\n    }\n  ]\n}\n'],
      ['obj.JSON', { a: null }, '{\n  "a": null\n}\n'],
    ];
    for (const [file, content, expected] of cases) {
      const { runId, run } = await api.run('wf', { file_path: file, content });
      expect(run.status, `${file}: ${run.error}`).to.equal('completed');
      expect(run.output, file).to.deep.include({ bytes: Buffer.byteLength(expected, 'utf8'), file_path: file });
      expect((await api.file(runId, file)).body, file).to.equal(expected);
    }
  });

  it('checklist: a .json path with invalid JSON text → the error, the run completed with success false and the node', async () => {
    const { run } = await as(bob).run('wf', { file_path: 'bad.json', content: '{not json' });
    expect(run.status).to.equal('completed');
    expect(run.output!.success).to.equal(false);
    expect(run.output!.node).to.equal('write');
    expect(String(run.output!.error)).to.match(/^write_file JSON content must be valid JSON: /);
  });

  it('a blank file_path is refused with the origin\'s sentence', async () => {
    const { run } = await as(bob).run('wf', { file_path: '  ', content: 'x' });
    expect(run.output).to.deep.equal({ success: false, error: "write_file requires a non-empty 'file_path' input.", node: 'write' });
  });

  it('announces the written file to the artifacts plugin as a run output of the node', async () => {
    const api = as(bob);
    const { runId } = await api.run('wf', { file_path: 'report/summary.md', content: '# done' }, 'files-chat');
    const items = await until(async () => (await k.inject({ url: `/api/gateway/runs/${runId}/artifacts`, token: bob })).json<{ items: Array<Record<string, unknown>> }>().items, (list) => list.length > 0, 60_000);
    expect(items[0]).to.include({ path: 'report/summary.md', node_id: 'write', run_id: runId, origin: 'run_output' });
  });

  it('as the last node the run ends with its output (bytes, file_path)', async () => {
    const { run } = await as(bob).run('wf-last', { file_path: 'last.txt', content: 'abc' });
    expect(run.output).to.deep.equal({ bytes: 3, file_path: 'last.txt', success: true });
  });

  it('checklist: write_pdf → content_type application/pdf, renderer reportlab, sha256 of the bytes; title and Markdown text inside', async () => {
    const api = as(bob);
    const content = '# Findings\n\nThe **first** point uses `code`.\n\n- apples\n* pears\n1. one\n2) two\n\n```\nprint("hi")\n```\n\n###### Small heading';
    const { runId, run } = await api.run('wp', { file_path: 'docs/report.pdf', content, title: 'Quarterly Report' });
    expect(run.status, String(run.error)).to.equal('completed');
    expect(run.output).to.deep.include({ content_type: 'application/pdf', renderer: 'reportlab', file_path: 'docs/report.pdf', success: true });
    const file = await api.file(runId, 'docs/report.pdf');
    expect(file.statusCode).to.equal(200);
    const bytes = file.rawPayload;
    expect(bytes.subarray(0, 5).toString()).to.equal('%PDF-');
    expect(run.output!.bytes).to.equal(bytes.length);
    expect(run.output!.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
    const pdf = await pdfText(bytes);
    expect(pdf.title).to.equal('Quarterly Report');
    const words = pdf.text.replace(/\s+/g, ' ');
    for (const piece of ['Quarterly Report', 'Findings', 'first', 'point uses', 'code', 'apples', 'pears', 'one', 'two', 'print("hi")', 'Small heading']) expect(words, piece).to.contain(piece);
    expect(words).not.to.contain('**');
    expect(words).not.to.contain('```');
  });

  it('write_pdf: object content as 2-space JSON, the default title, many pages for long text', async () => {
    const api = as(bob);
    const { runId, run } = await api.run('wp', { file_path: 'data.pdf', content: { key: 'value' }, title: null });
    expect(run.status, String(run.error)).to.equal('completed');
    const pdf = await pdfText((await api.file(runId, 'data.pdf')).rawPayload);
    expect(pdf.title).to.equal('AbstractRuntime PDF');
    expect(pdf.text).to.contain('"key": "value"');
    const long = Array.from({ length: 400 }, (_, i) => `Paragraph number ${i}.`).join('\n\n');
    const many = await api.run('wp', { file_path: 'long.pdf', content: long, title: 'Long' });
    expect((await pdfText((await api.file(many.runId, 'long.pdf')).rawPayload)).pages).to.be.greaterThan(3);
  });

  it('checklist: write_pdf requires a .pdf path', async () => {
    const { run } = await as(bob).run('wp', { file_path: 'report.txt', content: 'x', title: 't' });
    expect(run.output).to.deep.equal({ success: false, error: 'write_pdf requires a .pdf file path.', node: 'write' });
  });

  it('checklist: workspace escape refused — parent paths, absolute paths, the data folder, a link out of the folder', async () => {
    const api = as(bob);
    const target = path.join(outside, 'escaped.txt');
    const attempts = ['../escaped.txt', '../../escaped.txt', target, 'sub/../../escaped.txt', path.join(k.dataDir, 'owned.txt'), '/etc/keel-owned.txt'];
    for (const attempt of attempts) {
      const { run } = await api.run('wf', { file_path: attempt, content: 'owned' });
      expect(run.status, attempt).to.equal('completed');
      expect(run.output!.success, `${attempt}: ${JSON.stringify(run.output)}`).to.equal(false);
      expect(String(run.output!.error), attempt).to.match(/^write_file path rejected by workspace policy: /);
    }
    const pdf = await api.run('wp', { file_path: path.join(outside, 'x.pdf'), content: 'x', title: 't' });
    expect(String(pdf.run.output!.error)).to.match(/^write_pdf path rejected by workspace policy: /);
    expect(existsSync(target)).to.equal(false);
    expect(existsSync(path.join(outside, 'x.pdf'))).to.equal(false);
    expect(existsSync(path.join(k.dataDir, 'owned.txt'))).to.equal(false);

    // A link inside the session's folder that points out of it.
    const first = await api.run('wf', { file_path: 'seed.txt', content: 's' }, 'escape-chat');
    const ws = (await k.inject({ url: `/api/gateway/runs/${first.runId}/input_data`, token: bob })).json<{ _gateway_workspace: { path: string; kind: string } }>()._gateway_workspace;
    const folder = realpathSync(ws.kind === 'launch_folder' ? ws.path : path.join(k.dataDir, ws.path));
    symlinkSync(outside, path.join(folder, 'link'));
    const linked = await api.run('wf', { file_path: 'link/through-link.txt', content: 'owned' }, 'escape-chat');
    expect(linked.run.output!.success, JSON.stringify(linked.run.output)).to.equal(false);
    expect(String(linked.run.output!.error)).to.match(/^write_file path rejected by workspace policy: /);
    expect(existsSync(path.join(outside, 'through-link.txt'))).to.equal(false);
  });

  it('over the file tools\' write limit is refused (workspace.maxWriteBytes)', async () => {
    const { run } = await as(bob).run('wf', { file_path: 'big.txt', content: 'x'.repeat(1024 * 1024 + 1) });
    expect(run.output!.success).to.equal(false);
    expect(String(run.output!.error)).to.match(/workspace\.maxWriteBytes/);
  });
});
