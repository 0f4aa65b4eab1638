/**
 * The scheduler's decisions as pure functions (issue 15, engine): deterministic occurrence run ids
 * (reference §3.1 uuid5), retry backoff (policy.retry), the three misfire policies with every due
 * tick accounted for, serial admission, the admission limiter, and what an occurrence receives.
 */
import { expect } from 'chai';
import { engine } from '@keel/plugin-automations';
import type { AutomationDefinition } from '@keel/plugin-automations';

const AUTOMATION = '0b7c6a52-9f0e-5c11-8d2a-3f4e5a6b7c8d';
const MINUTE = 60_000;
const T0 = Date.parse('2026-03-01T10:00:00Z');

/** Due ticks first..last of a one-minute schedule anchored at T0. */
function due(first: number, last: number) {
  return { first, last, firstAtMs: T0 + first * MINUTE, lastAtMs: T0 + last * MINUTE };
}

function decide(overrides: Partial<engine.MisfireInput>): engine.MisfireDecision {
  return engine.decideDueTicks({
    policy: 'coalesce',
    due: due(0, 0),
    nowMs: T0 + 1000,
    busy: false,
    maxCatchUp: 10,
    graceMs: MINUTE,
    engineStartedMs: T0 - MINUTE,
    lastFinishedMs: null,
    ...overrides,
  });
}

/** Every tick from `first` to `last` appears exactly once: fired, coalesced or skipped. */
function accounted(decision: engine.MisfireDecision): number[] {
  const ticks: number[] = [];
  if (decision.skipped) for (let t = decision.skipped.first_tick; t <= decision.skipped.last_tick; t++) ticks.push(t);
  if (decision.fire?.coalesced) for (let t = decision.fire.coalesced.first_tick; t < decision.fire.coalesced.last_tick; t++) ticks.push(t);
  if (decision.fire) ticks.push(decision.fire.tick);
  return ticks.sort((a, b) => a - b);
}

describe('engine decisions: occurrence run ids (§3.1)', () => {
  it('uuid5 is RFC 4122 version 5 (the DNS namespace example of Python uuid.uuid5)', () => {
    expect(engine.uuid5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).to.equal('886313e1-3b8a-5372-9b90-0c9aee199e5d');
  });

  it('scheduled attempt 1 is uuid5(automation, "<revision>:<index>"), manual uuid5(automation, "manual:<command_id>"), attempt n ≥ 2 adds ":a<n>"', () => {
    const scheduled = engine.firstAttemptName({ kind: 'schedule' }, 2, 7);
    expect(scheduled).to.equal('2:7');
    expect(engine.occurrenceRunId(AUTOMATION, scheduled, 1)).to.equal(engine.uuid5(AUTOMATION, '2:7'));
    expect(engine.occurrenceRunId(AUTOMATION, scheduled, 3)).to.equal(engine.uuid5(AUTOMATION, '2:7:a3'));
    const manual = engine.firstAttemptName({ kind: 'manual', command_id: 'cmd-1' }, 2, 8);
    expect(manual).to.equal('manual:cmd-1');
    expect(engine.occurrenceRunId(AUTOMATION, manual, 2)).to.equal(engine.uuid5(AUTOMATION, 'manual:cmd-1:a2'));
    expect(engine.occurrenceRunId(AUTOMATION, scheduled, 1)).to.equal(engine.occurrenceRunId(AUTOMATION, scheduled, 1));
  });
});

describe('engine decisions: retry backoff (policy.retry)', () => {
  const retry = { max_attempts: 4, backoff: { initial: '30s', factor: 2, max: '1m' } };

  it('waits initial × factor^(n−1), capped at max, and none after the last attempt', () => {
    expect(engine.retryDelayMs(retry, 1)).to.equal(30_000);
    expect(engine.retryDelayMs(retry, 2)).to.equal(60_000);
    expect(engine.retryDelayMs(retry, 3)).to.equal(60_000);
    expect(engine.retryDelayMs(retry, 4)).to.equal(null);
    expect(engine.retryDelayMs({ ...retry, max_attempts: 1 }, 1)).to.equal(null);
  });

  it('reads <n><s|m|h|d> durations and refuses others', () => {
    expect(engine.durationMs('30s')).to.equal(30_000);
    expect(engine.durationMs('10m')).to.equal(600_000);
    expect(engine.durationMs('2h')).to.equal(7_200_000);
    expect(engine.durationMs('1d')).to.equal(86_400_000);
    expect(engine.durationMs('0s')).to.equal(null);
    expect(engine.durationMs('5 minutes')).to.equal(null);
  });
});

describe('engine decisions: misfire policies (every due tick accounted for)', () => {
  it('an on-time tick fires alone under every policy', () => {
    for (const policy of ['coalesce', 'skip', 'all'] as const) {
      const decision = decide({ policy, due: due(3, 3), nowMs: T0 + 3 * MINUTE + 200 });
      expect(decision.fire, policy).to.deep.equal({ tick: 3, coalesced: null });
      expect(decision.skipped, policy).to.equal(null);
      expect(decision.nextTick, policy).to.equal(4);
    }
  });

  it('coalesce: one occurrence for the latest due tick, carrying the ticks it stands for', () => {
    const decision = decide({ policy: 'coalesce', due: due(0, 9), nowMs: T0 + 9 * MINUTE + 5000, engineStartedMs: T0 + 9 * MINUTE });
    expect(decision.fire).to.deep.equal({ tick: 9, coalesced: { first_tick: 0, last_tick: 9, missed_count: 9, reason: 'server_down' } });
    expect(decision.skipped).to.equal(null);
    expect(decision.nextTick).to.equal(10);
    expect(accounted(decision)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('skip: no occurrence for missed ticks; they are one skipped range with the reason, and the next tick after now stays pending', () => {
    const decision = decide({ policy: 'skip', due: due(0, 9), nowMs: T0 + 9 * MINUTE + 5 * MINUTE, engineStartedMs: T0 + 14 * MINUTE });
    expect(decision.fire).to.equal(null);
    expect(decision.skipped).to.deep.equal({ first_tick: 0, last_tick: 9, missed_count: 10, reason: 'server_down' });
    expect(decision.nextTick).to.equal(10);
  });

  it('skip: a latest tick still within the grace fires; the older ones are skipped', () => {
    const decision = decide({ policy: 'skip', due: due(0, 9), nowMs: T0 + 9 * MINUTE + 1000, engineStartedMs: T0 + 9 * MINUTE });
    expect(decision.fire).to.deep.equal({ tick: 9, coalesced: null });
    expect(decision.skipped).to.deep.equal({ first_tick: 0, last_tick: 8, missed_count: 9, reason: 'server_down' });
    expect(accounted(decision)).to.have.length(10);
  });

  it('all: each missed tick fires as its own occurrence, one at a time, oldest first', () => {
    let next = 0;
    const fired: number[] = [];
    while (next <= 4) {
      const decision = decide({ policy: 'all', due: due(next, 4), nowMs: T0 + 4 * MINUTE + 1000 });
      expect(decision.skipped).to.equal(null);
      fired.push(decision.fire!.tick);
      next = decision.nextTick;
    }
    expect(fired).to.deep.equal([0, 1, 2, 3, 4]);
  });

  it('all: beyond scheduler.maxCatchUp the oldest ticks are recorded skipped with reason catch_up_limit', () => {
    const decision = decide({ policy: 'all', due: due(0, 24), maxCatchUp: 5, nowMs: T0 + 24 * MINUTE + 1000 });
    expect(decision.skipped).to.deep.equal({ first_tick: 0, last_tick: 19, missed_count: 20, reason: 'catch_up_limit' });
    expect(decision.fire).to.deep.equal({ tick: 20, coalesced: null });
    expect(decision.nextTick).to.equal(21);
  });

  it('serial: while an occurrence is current, coalesce and all wait; skip records the ticks at once', () => {
    for (const policy of ['coalesce', 'all'] as const) {
      const decision = decide({ policy, busy: true, due: due(2, 3), nowMs: T0 + 3 * MINUTE + 1000 });
      expect(decision, policy).to.deep.equal({ skipped: null, fire: null, nextTick: 2 });
    }
    const skip = decide({ policy: 'skip', busy: true, due: due(2, 3), nowMs: T0 + 3 * MINUTE + 1000 });
    expect(skip).to.deep.equal({ skipped: { first_tick: 2, last_tick: 3, missed_count: 2, reason: 'occurrence_running' }, fire: null, nextTick: 4 });
  });

  it('ticks that came due during the previous occurrence coalesce with reason occurrence_running', () => {
    const decision = decide({ policy: 'coalesce', due: due(2, 4), nowMs: T0 + 4 * MINUTE + 1000, lastFinishedMs: T0 + 4 * MINUTE + 500 });
    expect(decision.fire?.coalesced).to.deep.equal({ first_tick: 2, last_tick: 4, missed_count: 2, reason: 'occurrence_running' });
  });
});

describe('engine decisions: no stampede (admission limiter)', () => {
  it('admits at most perSecond per second on its own clock, then refills', () => {
    let now = 0;
    const limiter = new engine.AdmissionLimiter(3, () => now);
    expect([limiter.tryTake(), limiter.tryTake(), limiter.tryTake(), limiter.tryTake()]).to.deep.equal([true, true, true, false]);
    expect(limiter.waitMs()).to.be.greaterThan(0);
    now += 400;
    expect(limiter.tryTake()).to.equal(true);
    expect(limiter.tryTake()).to.equal(false);
    now += 1000;
    expect([limiter.tryTake(), limiter.tryTake(), limiter.tryTake(), limiter.tryTake()]).to.deep.equal([true, true, true, false]);
  });
});

describe('engine decisions: what an occurrence receives (§3.1, §3.9)', () => {
  const definition = {
    schema_version: 2,
    automation_id: AUTOMATION,
    revision: 3,
    title: 'Triage',
    target: { workflow_id: 'b@1.0.0:main', bundle_ref: 'b@1.0.0', flow_id: 'main', registry_scope: 'private', interface: null, input_data: { prompt: 'Triage my inbox', use_session_history: true, n: 1 } },
    trigger: { binding_id: 'bind-1', source_id: 'schedule', source_version: 1, config: { every: '1m' } },
    context: { mode: 'independent' },
    policy: { serial: true, misfire: 'coalesce', failure: 'continue', retry: { max_attempts: 3, backoff: { initial: '30s', factor: 2, max: '10m' } }, tool_approval: 'auto' },
    notify: { channels: ['console'] },
    session_id: `automation:${AUTOMATION}`,
    created_at: '2026-03-01T09:00:00.000Z',
    archived_at: null,
  } as AutomationDefinition;
  const fire = { kind: 'schedule' as const, event_id: 'schedule@1:bind-1:4', requested_at: '2026-03-01T10:04:00.000Z', envelope: { tick: 4, scheduled_at: '2026-03-01T10:04:00.000Z' } };

  it('independent: the [Trigger …] line on its own line before the prompt, the envelope, its own session, tags', () => {
    const inputs = engine.occurrenceInputs({ definition, fire, index: 5, firedAt: '2026-03-01T10:04:00.100Z', firstRunId: 'run-1' });
    expect(inputs.inputData.prompt).to.equal('[Trigger schedule@1 · occurrence 5 · fired 2026-03-01T10:04:00.100Z]\nTriage my inbox');
    expect(inputs.userTurn).to.equal(inputs.inputData.prompt);
    expect(inputs.inputData).to.not.have.property('use_session_history');
    expect(inputs.inputData.trigger).to.include({ source: 'schedule@1', event_id: 'schedule@1:bind-1:4', occurrence_index: 5, tick: 4, scheduled_at: '2026-03-01T10:04:00.000Z' });
    expect(inputs.sessionId).to.equal('occurrence-session:run-1');
    expect(inputs.tags).to.deep.equal({ session_kind: 'occurrence', automation_id: AUTOMATION, role: 'occurrence', occurrence_index: 5 });
    expect(definition.target.input_data.prompt, 'the definition is never changed').to.equal('Triage my inbox');
  });

  it('growing: the automation session with its history, session_kind automation; a manual fire says manual@1', () => {
    const growing = { ...definition, context: { mode: 'growing' as const } };
    const inputs = engine.occurrenceInputs({ definition: growing, fire: { kind: 'manual', event_id: 'manual:c1', requested_at: '', envelope: {}, command_id: 'c1' }, index: 2, firedAt: 'T', firstRunId: 'run-2' });
    expect(inputs.sessionId).to.equal(`automation:${AUTOMATION}`);
    expect(inputs.inputData.use_session_history).to.equal(true);
    expect(inputs.tags.session_kind).to.equal('automation');
    expect(String(inputs.inputData.prompt)).to.match(/^\[Trigger manual@1 · occurrence 2 · fired T\]\n/);
  });

  it('answer is output.response, else answer, else a string result; notify true or {title, body}', () => {
    expect(engine.answerOf({ response: 'r', answer: 'a' })).to.equal('r');
    expect(engine.answerOf({ answer: 'a', result: 'x' })).to.equal('a');
    expect(engine.answerOf({ result: 'x' })).to.equal('x');
    expect(engine.answerOf({ result: { x: 1 } })).to.equal('');
    expect(engine.notifyOf({ notify: true }, 'Title', 'the answer')).to.deep.equal({ title: 'Title', body: 'the answer' });
    expect(engine.notifyOf({ notify: { title: 'T', body: 'B' } }, 'Title', 'x')).to.deep.equal({ title: 'T', body: 'B' });
    expect(engine.notifyOf({ notify: false }, 'Title', 'x')).to.equal(null);
    expect(engine.failureMessage({ output: { error: 'out' }, error: 'run' })).to.equal('out');
    expect(engine.failureMessage({ output: null, error: null })).to.equal('failed');
  });
});
