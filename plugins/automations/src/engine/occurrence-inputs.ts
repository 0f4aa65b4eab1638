/**
 * What an occurrence's run receives (reference §3.1, §3.9): the definition's frozen inputs, the
 * trigger envelope in `input_data.trigger`, a string `prompt` prefixed with its own `[Trigger …]`
 * line, the session its context mode asks for, and the tags `GET /runs` lists.
 */
import type { LaunchTags } from '@keel/plugin-gateway-runs';
import type { AutomationDefinition, PendingFire } from '../model.js';

export interface OccurrenceLaunchInputs {
  inputData: Record<string, unknown>;
  sessionId: string;
  sessionKind: 'occurrence' | 'automation';
  tags: LaunchTags;
  /** The occurrence's user turn (the prompt as the run received it; empty when the inputs have no string prompt). */
  userTurn: string;
}

/** `<source>@<version>` of the fire: the binding's source, `manual@1` for a run_now. */
export function fireSource(definition: AutomationDefinition, fire: Pick<PendingFire, 'kind'>): string {
  return fire.kind === 'manual' ? 'manual@1' : `${definition.trigger.source_id}@${definition.trigger.source_version}`;
}

/** The line a string prompt starts with: `[Trigger schedule@1 · occurrence 3 · fired <ISO>]`. */
export function triggerLine(source: string, index: number, firedAt: string): string {
  return `[Trigger ${source} · occurrence ${index} · fired ${firedAt}]`;
}

/** The session of an independent occurrence: its own, named after its attempt-1 run id. */
export function occurrenceSessionId(firstRunId: string): string {
  return `occurrence-session:${firstRunId}`;
}

export function occurrenceInputs(args: {
  definition: AutomationDefinition;
  fire: PendingFire;
  index: number;
  firedAt: string;
  firstRunId: string;
}): OccurrenceLaunchInputs {
  const { definition, fire, index, firedAt, firstRunId } = args;
  const inputData = structuredClone(definition.target.input_data);
  const source = fireSource(definition, fire);
  inputData.trigger = {
    source: source,
    source_id: fire.kind === 'manual' ? 'manual' : definition.trigger.source_id,
    source_version: fire.kind === 'manual' ? 1 : definition.trigger.source_version,
    binding_id: definition.trigger.binding_id,
    kind: fire.kind,
    event_id: fire.event_id,
    automation_id: definition.automation_id,
    occurrence_index: index,
    revision: definition.revision,
    fired_at: firedAt,
    ...(fire.command_id ? { command_id: fire.command_id } : {}),
    ...fire.envelope,
  };
  let userTurn = '';
  if (typeof inputData.prompt === 'string') {
    userTurn = `${triggerLine(source, index, firedAt)}\n${inputData.prompt}`;
    inputData.prompt = userTurn;
  }
  const growing = definition.context.mode === 'growing';
  if (growing) inputData.use_session_history = true;
  else delete inputData.use_session_history;
  const sessionKind = growing ? 'automation' : 'occurrence';
  return {
    inputData,
    sessionId: growing ? definition.session_id : occurrenceSessionId(firstRunId),
    sessionKind,
    tags: { session_kind: sessionKind, automation_id: definition.automation_id, role: 'occurrence', occurrence_index: index },
    userTurn,
  };
}
