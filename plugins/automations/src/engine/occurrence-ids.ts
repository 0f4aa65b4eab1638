/**
 * Deterministic occurrence run ids (reference gateway-surfaces §3.1): the same occurrence always
 * gets the same run id, so a launch retried after a crash finds the run it started before.
 */
import { uuid5 } from '../ids.js';

/** The uuid5 name of an occurrence's first attempt: `<revision>:<index>` (scheduled and event fires) or `manual:<command_id>`. */
export function firstAttemptName(fire: { kind: 'manual' | 'event' | 'schedule'; command_id?: string }, revision: number, index: number): string {
  return fire.kind === 'manual' && fire.command_id ? `manual:${fire.command_id}` : `${revision}:${index}`;
}

/** The run id of attempt `attempt` (1-based): attempt 1 is the name itself, attempt n ≥ 2 the name plus `:a<n>`. */
export function occurrenceRunId(automationId: string, firstName: string, attempt: number): string {
  return uuid5(automationId, attempt <= 1 ? firstName : `${firstName}:a${attempt}`);
}
