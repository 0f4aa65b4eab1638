/**
 * The transcript a discussion is seeded with (reference gateway-surfaces §3.8, §5.4–5.5), as a pure
 * function over occurrence records: one pair per finished occurrence (a failed one answers with its
 * failure's message), oldest first, only up to the occurrence discussed, the newest whole pairs
 * within the token window, and a first user message that starts with the summary line.
 */
import { expect } from 'chai';
import { discussionSummaryLine, discussionTranscript, occurrenceTurn, type DiscussionSubject } from '../../plugins/automations/dist/discuss/discussion-transcript.js';
import type { OccurrenceRecord } from '../../plugins/automations/dist/model.js';

function occurrence(index: number, fields: Partial<OccurrenceRecord> = {}): OccurrenceRecord {
  return {
    automation_id: 'auto-1',
    index,
    run_id: `run-${index}`,
    attempts: 1,
    revision: 1,
    event_id: `manual:c${index}`,
    trigger_kind: 'manual',
    fired_at: `2026-01-01T00:00:0${index % 10}.000Z`,
    scheduled_at: null,
    finished_at: `2026-01-01T00:01:0${index % 10}.000Z`,
    status: 'completed',
    user_turn: `[Trigger manual@1 · occurrence ${index} · fired x]\nprompt ${index}`,
    answer: `answer ${index}`,
    failure: null,
    coalesced: null,
    session_id: `s-${index}`,
    notify: null,
    input_data: { prompt: `prompt ${index}` },
    source: 'manual@1',
    tick: null,
    command_id: `c${index}`,
    ...fields,
  };
}

const subject = (fields: Partial<DiscussionSubject> = {}): DiscussionSubject => ({
  automation_id: 'auto-1',
  title: 'Inbox triage',
  occurrence_index: 99,
  mounted_workspace: 'workspaces/session-abc',
  workspace_root: 'workspaces/session-def',
  ...fields,
});

/** Newest first, as the store reads them. */
const newestFirst = (list: OccurrenceRecord[]) => [...list].sort((a, b) => b.index - a.index);

describe('discuss: the seed transcript', () => {
  it('is one user/assistant pair per finished occurrence, oldest first', () => {
    const { messages } = discussionTranscript(newestFirst([occurrence(1), occurrence(2), occurrence(3)]), subject());
    expect(messages.map((m) => m.role)).to.deep.equal(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(messages.slice(1).map((m) => m.content)).to.deep.equal(['answer 1', occurrence(2).user_turn, 'answer 2', occurrence(3).user_turn, 'answer 3']);
    expect(messages.every((m) => m.metadata.discussion_seed === true)).to.equal(true);
    expect(messages[2]!.metadata).to.include({ occurrence_index: 2, run_id: 'run-2', automation_id: 'auto-1' });
  });

  it('answers a failed occurrence with its failure message, and leaves out unfinished, cancelled and skipped ones', () => {
    const list = [
      occurrence(1, { status: 'failed', answer: '', failure: { reason_code: 'occurrence_failed', message: 'The provider refused the key.', attempts: 3 } }),
      occurrence(2, { status: 'cancelled', answer: '' }),
      occurrence(3, { status: 'skipped', answer: '', user_turn: '' }),
      occurrence(4, { status: 'running', answer: '', finished_at: null }),
      occurrence(5, { status: 'backoff', answer: '' }),
    ];
    const { messages } = discussionTranscript(newestFirst(list), subject());
    expect(messages).to.have.length(2);
    expect(messages[1]).to.include({ role: 'assistant', content: 'The provider refused the key.' });
    expect(messages[1]!.metadata.occurrence_status).to.equal('failed');
  });

  it('leaves out the occurrences after the one discussed', () => {
    const { messages } = discussionTranscript(newestFirst([occurrence(1), occurrence(2), occurrence(3)]), subject({ occurrence_index: 2 }));
    expect(messages.filter((m) => m.role === 'assistant').map((m) => m.content)).to.deep.equal(['answer 1', 'answer 2']);
  });

  it('starts the first user message with the summary line naming the automation and its folders', () => {
    const s = subject();
    const { messages, summary_line } = discussionTranscript(newestFirst([occurrence(1)]), s);
    expect(summary_line).to.equal(discussionSummaryLine(s));
    expect(summary_line).to.contain('Inbox triage').and.to.contain('auto-1').and.to.contain('workspaces/session-abc is mounted read-only').and.to.contain('workspaces/session-def');
    expect(messages[0]!.content).to.equal(`${summary_line}\n${occurrence(1).user_turn}`);
  });

  it('is empty when nothing finished (the summary line is then for the prompt)', () => {
    const { messages, summary_line } = discussionTranscript(newestFirst([occurrence(1, { status: 'running', answer: '' })]), subject());
    expect(messages).to.deep.equal([]);
    expect(summary_line).to.match(/^\[Discussion of automation/);
  });

  it('keeps the newest whole pairs within the window, with the truncation line after the summary line', () => {
    const list = [1, 2, 3, 4].map((i) => occurrence(i));
    const perTurn = occurrenceTurn(list[0]!)!.tokens;
    // Room for two pairs and a bit, not three: the two newest are kept whole.
    const { messages, report } = discussionTranscript(newestFirst(list), subject(), perTurn * 2 + 1);
    expect(messages).to.have.length(4);
    expect(report).to.include({ replayed_messages: 4, dropped_messages: 4, oversize_turn_kept: false });
    const first = messages[0]!.content as string;
    const lines = first.split('\n');
    expect(lines[0]).to.match(/^\[Discussion of automation/);
    expect(lines[1]).to.match(/^\[#TRUNCATION: 4 earlier message\(s\)/);
    expect(first.endsWith(occurrence(3).user_turn)).to.equal(true);
  });

  it('keeps a newest pair above the window whole and alone', () => {
    const big = occurrence(2, { answer: 'x'.repeat(4000) });
    const { messages, report } = discussionTranscript(newestFirst([occurrence(1), big]), subject(), 100);
    expect(messages).to.have.length(2);
    expect(messages[1]!.content).to.equal(big.answer);
    expect(report.oversize_turn_kept).to.equal(true);
  });

  it('reads lazily: a window already full stops reading older occurrences', () => {
    let read = 0;
    function* many(): Generator<OccurrenceRecord> {
      for (let i = 10_000; i >= 1; i--) {
        read++;
        yield occurrence(i, { answer: 'y'.repeat(400) });
      }
    }
    const { messages } = discussionTranscript(many(), subject({ occurrence_index: 10_000 }), 1_000);
    expect(messages.length).to.be.greaterThan(0);
    expect(read).to.be.lessThan(200);
  });
});
