/**
 * `input_data.skills` at `POST /runs/start` (seed 000 §2.2, §2.9; reference gateway-surfaces §7.2):
 * validated skills become active with their index in `_runtime.skills_block`; held, blocked, missing
 * and unmet skills are labelled verdicts in `_runtime.skills_resolution` (shown on `GET /runs/{id}`);
 * a caller-supplied block is never overwritten; nothing ever blocks the start.
 */
import path from 'node:path';
import { expect } from 'chai';
import type { TestKernel } from '@keel/plugin-sdk/testing';
import { createAccount, uploadBundleAs } from './helpers/accounts.js';
import { edges, node } from './helpers/flow-builder.js';
import { gatewayRuns, until, type RunRecord } from './helpers/gateway-runs.js';
import { tempDir } from './helpers/paths.js';
import { skillsKernel, withShelfEnv, writeSkills, writeTrust, type SkillsResolution } from './helpers/skills.js';

/** start → end, the end's `block` pin reading `_runtime.skills_block` (what agents of the run would get). */
const blockFlow = {
  id: 'block',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
    node({ id: 'get', type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name: '_runtime.skills_block' } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['block'] }),
  ],
  edges: edges('start -> end', 'get.value -> end.block'),
};

type RunWithSkills = RunRecord & { skills_resolution: SkillsResolution | null };

describe('skills: the run-start selection (input_data.skills)', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-start-');
  const shelf = path.join(work.dir, 'shelf');
  let k: TestKernel;
  const runs = gatewayRuns(() => k);
  let hashes: Record<string, string>;

  before(async () => {
    hashes = await writeSkills(shelf, {
      good: { description: 'Good <skill> & "friends".' },
      fresh: { description: 'Never reviewed.' },
      bad: { description: 'Blocked by an advisory.' },
      needs: { description: 'Needs an MCP server.', front: 'requires:\n  mcp_servers: [github]\n' },
      needtool: { description: 'Needs a tool Keel lacks.', front: 'requires:\n  tools: [web_search, read_file]\n' },
      oktool: { description: 'Needs tools Keel has.', front: 'requires:\n  tools: [read_file, read_skill]\n' },
    });
    const { fresh: _fresh, ...validated } = hashes;
    writeTrust(shelf, validated, [{ skill: 'bad', reason: 'it leaks secrets' }]);
    k = await skillsKernel();
    await runs.uploadBundle('skills-block', blockFlow);
  });
  after(async () => {
    await k?.stop();
    work.remove();
  });

  async function start(inputData: Record<string, unknown>, token = k.adminToken, bundleId = 'skills-block'): Promise<RunWithSkills> {
    const res = await k.inject({ method: 'POST', url: '/api/gateway/runs/start', token, payload: { bundle_id: bundleId, input_data: inputData } });
    expect(res.statusCode, res.body).to.equal(200);
    const id = res.json<{ run_id: string }>().run_id;
    return until(() => k.inject({ url: `/api/gateway/runs/${id}`, token }).then((r) => r.json<RunWithSkills>()), { what: `run ${id} to end`, ok: (r) => ['completed', 'failed', 'cancelled'].includes(r.status), deadline: 60_000 });
  }

  it('validated skills are active with their tree hashes and index; held, blocked, missing and unmet ones are labelled verdicts, in the order asked', async () => {
    const run = await withShelfEnv(shelf, () => start({ skills: [' good ', 'good', 'fresh', 'bad', 'needs', 'needtool', 'nope', '../etc/passwd', 'oktool', 42, ''] }));
    expect(run.status, run.error ?? '').to.equal('completed');
    const r = run.skills_resolution!;
    expect(r.requested).to.deep.equal(['good', 'fresh', 'bad', 'needs', 'needtool', 'nope', '../etc/passwd', 'oktool']);
    expect(r.active).to.deep.equal(['good', 'oktool']);
    expect(r.resolved_tree_hashes).to.deep.equal({ good: hashes.good, oktool: hashes.oktool });
    expect(r.requires_unmet).to.deep.equal(['needs', 'needtool']);
    expect(r.verdicts).to.deep.equal([
      'ignored: 42 is not a skill name (a string)',
      `active: good — validated at ${hashes.good}`,
      'held: fresh — no validation record in validations.yaml',
      'blocked: bad — advisory: it leaks secrets',
      'requires_unmet: needs — MCP server(s) not declared on this gateway: github',
      'requires_unmet: needtool — tool(s) not in the run-lane universe: web_search',
      'missing from shelf: nope',
      'missing from shelf: ../etc/passwd',
      `active: oktool — validated at ${hashes.oktool}`,
    ]);
    expect(run.output!.block).to.equal(
      '<available_skills>\n<skill>\n<name>good</name>\n<description>Good &lt;skill&gt; &amp; &quot;friends&quot;.</description>\n</skill>\n<skill>\n<name>oktool</name>\n<description>Needs tools Keel has.</description>\n</skill>\n</available_skills>',
    );
  });

  it('a caller-supplied _runtime.skills_block is kept as given; the selection is ignored with a labelled verdict', async () => {
    const run = await withShelfEnv(shelf, () => start({ skills: ['good'], _runtime: { skills_block: 'MY OWN INDEX' } }));
    expect(run.output!.block).to.equal('MY OWN INDEX');
    expect(run.skills_resolution).to.deep.include({ requested: ['good'], active: [], resolved_tree_hashes: {} });
    expect(run.skills_resolution!.verdicts).to.deep.equal(['ignored: the caller supplied _runtime.skills_block, which is kept as given; the skills selection (good) was not resolved']);
  });

  it('no skills key: no resolution and no block; a start asking only for held skills gets no block either', async () => {
    const plain = await withShelfEnv(shelf, () => start({ prompt: 'hi' }));
    expect(plain.skills_resolution).to.equal(null);
    expect(plain.output!.block).to.equal(null);
    const held = await withShelfEnv(shelf, () => start({ skills: ['fresh'] }));
    expect(held.skills_resolution!.active).to.deep.equal([]);
    expect(held.output!.block).to.equal(null);
  });

  it('an unusable shelf or a skills value that is not a list degrades to a #FALLBACK verdict; the run still completes', async () => {
    const noShelf = await withShelfEnv('relative/shelf', () => start({ skills: ['good'] }));
    expect(noShelf.status).to.equal('completed');
    expect(noShelf.skills_resolution!.verdicts).to.deep.equal(['#FALLBACK no curated shelf found (KEEL_SKILLS_SHELF (environment) is not usable: relative/shelf is not an absolute path) — requested skills did not resolve']);
    const notList = await withShelfEnv(shelf, () => start({ skills: 'good' }));
    expect(notList.status).to.equal('completed');
    expect(notList.skills_resolution).to.deep.include({ requested: [], active: [] });
    expect(notList.skills_resolution!.verdicts).to.deep.equal(['#FALLBACK input_data.skills is not a list of skill names; it was ignored']);
  });

  it('a non-admin account resolves skills the same way on its own runs; another account cannot read that run', async () => {
    const token = await createAccount(k, 'skills-runner');
    await uploadBundleAs(k, token, 'my-block', blockFlow);
    const run = await withShelfEnv(shelf, () => start({ skills: ['good'] }, token, 'my-block'));
    expect(run.skills_resolution!.active).to.deep.equal(['good']);
    const other = await createAccount(k, 'skills-other');
    expect((await k.inject({ url: `/api/gateway/runs/${run.run_id}`, token: other })).statusCode).to.equal(404);
  });
});

describe('skills: maxRequested bounds one start', function () {
  this.timeout(120_000);
  const work = tempDir('keel-skills-max-');
  let k: TestKernel;
  const runs = gatewayRuns(() => k);
  after(async () => {
    await k?.stop();
    work.remove();
  });

  it('names beyond maxRequested are left out with a #TRUNCATION verdict naming them', async () => {
    const shelf = path.join(work.dir, 'shelf');
    writeTrust(shelf, await writeSkills(shelf, { a: {}, b: {}, c: {} }));
    k = await skillsKernel({ maxRequested: 2 });
    await runs.uploadBundle('skills-block', blockFlow);
    const res = await withShelfEnv(shelf, () => k.inject({ method: 'POST', url: '/api/gateway/runs/start', token: k.adminToken, payload: { bundle_id: 'skills-block', input_data: { skills: ['a', 'b', 'c'] } } }));
    const id = res.json<{ run_id: string }>().run_id;
    const run = await until(() => runs.getRun(id) as Promise<RunWithSkills>, { what: 'the run to end', ok: (r) => r.status === 'completed' });
    expect(run.skills_resolution!.requested).to.deep.equal(['a', 'b']);
    expect(run.skills_resolution!.active).to.deep.equal(['a', 'b']);
    expect(run.skills_resolution!.verdicts[0]).to.equal('#TRUNCATION only the first 2 of 3 requested skills were resolved (skills setting maxRequested): c left out');
  });
});
