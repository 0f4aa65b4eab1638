/**
 * The `read_skill` tool (reference gateway-surfaces §7.2) as runs reach it: a `call_tool` node and an
 * agent whose run has active skills (the agent gets the tool in its allow-list and the skills index
 * in its system prompt). It reads only validated skills of the shelf, by name: never a path, never
 * through a link, judged again at read time, capped at `max_chars` with a `#TRUNCATION` line.
 */
import { symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { skillsPlugin } from '@keel/plugin-skills';
import { edges, node } from './helpers/flow-builder.js';
import { until, type LedgerItem, type RunRecord } from './helpers/gateway-runs.js';
import { llmGatewaySuite, startedOf } from './helpers/llm-gateway.js';
import { tempDir } from './helpers/paths.js';
import { withShelfEnv, writeSkills, writeTrust } from './helpers/skills.js';

/** start → call_tool (the start's `call`, an optional allowed_tools pin) → end with result and success. */
function readFlow(pins: Record<string, unknown> = {}) {
  return {
    id: 'read',
    nodes: [
      node({ id: 'start', type: 'on_flow_start', outputs: ['call'] }),
      node({ id: 'tool', type: 'call_tool', inputs: ['tool_call', 'allowed_tools'], outputs: ['result', 'success'], data: { pinDefaults: pins } }),
      node({ id: 'end', type: 'on_flow_end', inputs: ['result', 'success'] }),
    ],
    edges: edges('start -> tool', 'tool -> end', 'start.call -> tool.tool_call', 'tool.result -> end.result', 'tool.success -> end.success'),
  };
}

/** start → agent (no tools of its own, at most 4 iterations) → end. */
const agentFlow = {
  id: 'agent',
  nodes: [
    node({ id: 'start', type: 'on_flow_start', outputs: ['prompt'] }),
    node({ id: 'think', type: 'agent', inputs: ['prompt', 'tools', 'max_iterations'], outputs: ['response', 'success', 'meta'], data: { pinDefaults: { tools: [], max_iterations: 4 } } }),
    node({ id: 'end', type: 'on_flow_end', inputs: ['response'] }),
  ],
  edges: edges('start -> think', 'think -> end', 'start.prompt -> think.prompt', 'think.response -> end.response'),
};

const act = (tool: string, args: Record<string, unknown>) => `I will read the skill first.\nAction: ${tool}\nAction Input: ${JSON.stringify(args)}`;
type ToolResult = { name: string; success: boolean; output: string | null; error: string | null };

describe('skills: read_skill through call_tool', function () {
  this.timeout(120_000);
  const work = tempDir('keel-read-skill-');
  const shelf = path.join(work.dir, 'shelf');
  const { gw } = llmGatewaySuite({ models: ['m'], plugins: [{ plugin: skillsPlugin, config: {} }] });
  let hashes: Record<string, string>;

  before(async () => {
    hashes = await writeSkills(shelf, {
      good: { description: 'A good skill.', body: 'Do the good thing.\n' },
      long: { description: 'A long skill.', body: `${'x'.repeat(40_000)}\nEND\n` },
      fresh: { description: 'Never reviewed.', body: 'SECRET-FRESH' },
      bad: { description: 'Blocked.', body: 'SECRET-BAD' },
      later: { description: 'Edited after its validation.', body: 'first' },
    });
    const { fresh: _f, ...validated } = hashes;
    writeTrust(shelf, validated, [{ skill: 'bad', reason: 'withdrawn' }]);
    // A skill folder that is a link to a folder outside the shelf, validated at that folder's hash.
    const outside = path.join(work.dir, 'outside');
    const outsideHashes = await writeSkills(outside, { evil: { description: 'Outside the shelf.', body: 'SECRET-OUTSIDE' } });
    symlinkSync(path.join(outside, 'skills', 'evil'), path.join(shelf, 'skills', 'evil'));
    writeTrust(shelf, { ...validated, evil: outsideHashes.evil! }, [{ skill: 'bad', reason: 'withdrawn' }]);
  });
  after(() => work.remove());

  const read = (args: Record<string, unknown>, pins: Record<string, unknown> = {}) => withShelfEnv(shelf, () => gw.runFlow(readFlow(pins), { call: { name: 'read_skill', arguments: args } }));

  it('the seeded shelf: read_skill returns a bundled skill\'s instructions as a durable tool_calls effect', async () => {
    const { run, ledger } = await withShelfEnv(null, () => gw.runFlow(readFlow(), { call: { name: 'read_skill', arguments: { name: 'keel-runs' } } }));
    expect(run.status, run.error ?? '').to.equal('completed');
    expect(run.output!.success).to.equal(true);
    expect(run.output!.result).to.match(/^# Skill: keel-runs\n/);
    expect(run.output!.result).to.contain('POST /api/gateway/runs/start');
    expect(startedOf(ledger, 'tool_calls')).to.have.length(1);
  });

  it('a validated skill of the configured shelf reads whole under the default cap', async () => {
    const { run } = await read({ name: 'good' });
    expect(run.output).to.include({ success: true, result: '# Skill: good\nA good skill.\n\nDo the good thing.' });
  });

  for (const name of ['../shelf/skills/good', '..', '/etc/passwd', 'good/../good', 'good/SKILL.md', '.hidden', 'a'.repeat(65), '', 'go od']) {
    it(`a name that is not a skill name is refused without touching the disk: ${JSON.stringify(name).slice(0, 40)}`, async () => {
      const { run } = await read({ name });
      expect(run.output!.success).to.equal(false);
      expect(run.output!.result).to.match(/^read_skill needs the name of a skill \(letters, digits, '-' and '_'\), not /);
    });
  }

  it('a name that is not a string is refused the same way', async () => {
    const { run } = await read({ name: { path: '/etc/passwd' } });
    expect(run.output!.success).to.equal(false);
    expect(run.output!.result).to.match(/^read_skill needs the name of a skill/);
  });

  it('held, blocked and missing skills are refused with their reasons; their text never comes back', async () => {
    const fresh = (await read({ name: 'fresh' })).run.output!;
    expect(fresh).to.include({ success: false, result: 'The skill fresh is held until it is validated: no validation record in validations.yaml.' });
    const bad = (await read({ name: 'bad' })).run.output!;
    expect(bad).to.include({ success: false, result: 'The skill bad is blocked: advisory: withdrawn.' });
    const missing = (await read({ name: 'nope' })).run.output!;
    expect(missing).to.include({ success: false, result: 'There is no skill named nope on the shelf.' });
  });

  it('a skill folder that is a link (to a validated tree outside the shelf) is held, never read through', async () => {
    const { run } = await read({ name: 'evil' });
    expect(run.output!.success).to.equal(false);
    expect(run.output!.result).to.equal('The skill evil is held until it is validated: the skill folder is a link (links on a shelf are not followed).');
    expect(JSON.stringify(run.output)).to.not.contain('SECRET-OUTSIDE');
  });

  it('trust is judged again at read time: a skill edited after its validation is held', async () => {
    expect((await read({ name: 'later' })).run.output!.success).to.equal(true);
    writeFileSync(path.join(shelf, 'skills', 'later', 'SKILL.md'), '---\nname: later\ndescription: Edited after its validation.\n---\nsecond\n');
    const { run } = await read({ name: 'later' });
    expect(run.output!.success).to.equal(false);
    expect(run.output!.result).to.match(/^The skill later is held until it is validated: changed since it was validated/);
  });

  it('max_chars caps the text with the #TRUNCATION line; below 1,000 it is raised to 1,000; the default is 16,000', async () => {
    const capped = (await read({ name: 'long', max_chars: 2000 })).run.output!.result as string;
    expect(capped).to.match(/\n#TRUNCATION: skill body capped at 2000 chars — call read_skill with a larger max_chars for the rest$/);
    expect(capped.split('\n#TRUNCATION')[0]).to.have.length(2000);
    const floor = (await read({ name: 'long', max_chars: 5 })).run.output!.result as string;
    expect(floor).to.contain('#TRUNCATION: skill body capped at 1000 chars');
    const byDefault = (await read({ name: 'long' })).run.output!.result as string;
    expect(byDefault).to.contain('#TRUNCATION: skill body capped at 16000 chars');
    const whole = (await read({ name: 'long', max_chars: 100_000 })).run.output!.result as string;
    expect(whole.endsWith('END')).to.equal(true);
  });

  it('an allowed_tools pin without read_skill refuses it', async () => {
    const { run } = await read({ name: 'good' }, { allowed_tools: ['read_file'] });
    expect(run.output).to.include({ success: false, result: "the tool 'read_skill' is not available on this gateway" });
  });
});

describe('skills: an agent of a run with active skills reaches read_skill', function () {
  this.timeout(120_000);
  const { gw, endpoint } = llmGatewaySuite({ models: ['with', 'without'], gatewayRuns: { agentToolPrompt: true }, plugins: [{ plugin: skillsPlugin, config: {} }] }, (e) => {
    e.script('with', [{ content: act('read_skill', { name: 'keel-runs' }) }, { content: 'Start it with POST /runs/start.' }]);
    e.script('without', [{ content: act('read_skill', { name: 'keel-runs' }) }, { content: 'No skill.' }]);
  });

  async function runAgent(model: string, inputData: Record<string, unknown>) {
    const { runId, run } = await withShelfEnv(null, () => gw.runFlow(agentFlow, { prompt: 'How do I start a run?', _runtime: { provider: 'fake', model }, ...inputData }));
    expect(run.status, run.error ?? '').to.equal('completed');
    const kids: RunRecord[] = await until(() => gw.children(runId), { what: 'the agent child', ok: (c) => c.length === 1 });
    const items: LedgerItem[] = await gw.ledger(kids[0]!.run_id);
    return { run, child: kids[0]!, tools: items.filter((i) => i.effect?.type === 'tool_calls') };
  }

  it('validated skills: the agent gets read_skill in its allow-list and the skills index in its system prompt, and reads the skill', async () => {
    const { run, tools } = await runAgent('with', { skills: ['keel-runs'] });
    expect(run.output).to.deep.include({ response: 'Start it with POST /runs/start.' });
    const system = endpoint.of('with')[0]!.messages[0]!;
    expect(system.role).to.equal('system');
    expect(system.content).to.contain('<available_skills>\n<skill>\n<name>keel-runs</name>');
    expect(system.content).to.contain('read_skill');
    const started = tools.find((t) => t.status === 'started')!;
    expect(started.effect!.payload.allowed_tools).to.deep.equal(['read_skill']);
    const done = tools.find((t) => t.status === 'completed')!;
    const result = (done.result as { results: ToolResult[] }).results[0]!;
    expect(result).to.include({ name: 'read_skill', success: true });
    expect(result.output).to.match(/^# Skill: keel-runs\n/);
    // The observation the model read next is the skill's text.
    const second = endpoint.of('with')[1]!.messages.map((m) => m.content).join('\n');
    expect(second).to.contain('Observation (read_skill): # Skill: keel-runs');
  });

  it('no active skills: read_skill is not offered; asking for it gets the not-available observation and no tool call runs', async () => {
    const { tools } = await runAgent('without', {});
    expect(tools).to.deep.equal([]);
    const system = endpoint.of('without')[0]!.messages[0]!.content;
    expect(system).to.not.contain('available_skills');
    const second = endpoint.of('without')[1]!.messages.map((m) => m.content).join('\n');
    expect(second).to.contain("the tool 'read_skill' is not available on this gateway");
  });
});
