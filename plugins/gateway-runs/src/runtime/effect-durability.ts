/**
 * How many synced commits an effect costs, from what a crash in the middle of it could lose:
 *
 * - `buffered`: nothing leaves the run (an `answer_user`, a `wait_until` already due). Its records
 *   wait in memory and are committed with the run's next commit (the next effect's, a wait, the end
 *   of the slice, the end of the run). A crash loses only records nobody was shown (the live stream
 *   and the API read what is committed); the replay does those steps again from the saved state.
 * - `committed`: local work whose outcome leaves the run (a wait other requests answer, an event
 *   other runs receive, a child run): the work, then its records and the run's state in one commit.
 *   A contributed node's work may take long: what is staged is committed while it works (run-stepper.ts).
 * - `announced`: an external side effect (an LLM call, tools, a contributed node unless it says its
 *   work is local): its `started` record is committed before the work, so a retry after a crash
 *   knows it began (attempt numbers, the tool step that is not entered twice); with records staged,
 *   the run's state rides with it (a replay starts after the steps they show); then the final
 *   record and the run's state in one commit.
 */
import { isContributed, type EffectRequest } from '../flow/effect-requests.js';
import { sideEffectsOf, type NodeTypes } from '../flow/node-types.js';

export type EffectDurability = 'buffered' | 'committed' | 'announced';

export function durabilityOf(effect: EffectRequest, nodeTypes: Pick<NodeTypes, 'effect'> | undefined): EffectDurability {
  if (isContributed(effect)) return sideEffectsOf(nodeTypes?.effect(effect.type), effect.payload) === 'local' ? 'committed' : 'announced';
  switch (effect.type) {
    case 'answer_user':
      return 'buffered';
    case 'wait_until':
      // Due already: completed at once, like an answer; not due: the run waits (committed).
      return Date.parse(effect.payload.until) <= Date.now() ? 'buffered' : 'committed';
    case 'ask_user':
    case 'wait_event':
    case 'emit_event':
    case 'start_subworkflow':
      return 'committed';
    case 'llm_call':
    case 'tool_calls':
      return 'announced';
  }
}
