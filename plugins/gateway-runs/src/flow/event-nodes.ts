/**
 * `on_event` and `on_schedule` (RN §7.2, §7.3): exec nodes that wait, then run their branch. Both
 * put themselves on the control stack (on_schedule only when recurrent), so a branch that ends
 * without an exec edge comes back here and the node waits again: a listener loops for ever, a
 * recurrent schedule counts its next interval from the end of the branch.
 */
import { eventScope } from './event-keys.js';
import { isRecord, type BuiltinEffect } from './effect-requests.js';
import { temp, type RunVars } from './node-io.js';
import { ValueError } from './value-error.js';
import type { FlowNode } from './visualflow.js';

const INTERVAL = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** ISO-8601 as Python's `datetime.fromisoformat` reads it: a date, optionally a time and an offset (`Z` accepted). */
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}(?::\d{2}(?:\.\d+)?)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** What the node does on this visit: the wait it asks for (with its payload), or its outputs once the wait ended. */
export type EventNodeStep = { kind: 'effect'; effect: BuiltinEffect } | { kind: 'done'; output: Record<string, unknown> };

/** `on_event`: waits on `evt:<scope>:<id>:<name>` (blank name: `*`, any event); the event's envelope arrives as its outputs. */
export function onEventStep(node: FlowNode, inputs: Record<string, unknown>, vars: RunVars): EventNodeStep {
  const t = temp(vars);
  if (node.id in t.effects) {
    const envelope = isRecord(t.effects[node.id]) ? (t.effects[node.id] as Record<string, unknown>) : {};
    delete t.effects[node.id];
    return { kind: 'done', output: { event: envelope, payload: envelope.payload ?? {}, event_id: envelope.event_id ?? null, name: envelope.name ?? null } };
  }
  keepOnControlStack(vars, node.id, 'on_event');
  const config = eventConfig(node);
  const name = String(inputs.name || inputs.event_name || config.name || config.event_name || '').trim() || '*';
  const scope = eventScope('scope' in inputs && inputs.scope !== null ? inputs.scope : config.scope);
  return { kind: 'effect', effect: { type: 'wait_event', payload: { scope, name, prompt: null, choices: null, allow_free_text: true } } };
}

/** `on_schedule`: waits until the next interval (`30s`, `1.5 m`, `250ms`) or an ISO time (once); `timestamp` stays null as in the origin. */
export function onScheduleStep(node: FlowNode, inputs: Record<string, unknown>, vars: RunVars, now = Date.now()): EventNodeStep {
  const t = temp(vars);
  if (node.id in t.effects) {
    delete t.effects[node.id];
    return { kind: 'done', output: { timestamp: null } };
  }
  const config = eventConfig(node);
  const schedule = String(inputs.schedule || config.schedule || '15s').trim();
  if (!schedule) throw new ValueError(`on_schedule node '${node.id}' missing schedule`);
  const rawRecurrent = 'recurrent' in inputs && inputs.recurrent !== null && inputs.recurrent !== undefined ? inputs.recurrent : (config.recurrent ?? true);
  const interval = INTERVAL.exec(schedule);
  let until: string;
  if (interval) {
    until = new Date(now + Number(interval[1]) * UNIT_MS[interval[2]!.toLowerCase()]!).toISOString();
    // Only a recurrent interval loops; a timestamp runs its branch once (recurring on it would spin).
    if (rawRecurrent) keepOnControlStack(vars, node.id, 'on_schedule');
  } else {
    const at = ISO.test(schedule) ? Date.parse(asUtc(schedule.replace(' ', 'T'))) : NaN;
    if (Number.isNaN(at)) throw new ValueError(`Invalid schedule '${schedule}': expected interval like '30s', '5m', '1h' or an ISO timestamp`);
    until = new Date(at).toISOString();
  }
  return { kind: 'effect', effect: { type: 'wait_until', payload: { until } } };
}

function eventConfig(node: FlowNode): Record<string, unknown> {
  return isRecord(node.data.eventConfig) ? node.data.eventConfig : {};
}

/** A time without an offset is UTC (the origin's rule); JavaScript would read it as local time. */
function asUtc(iso: string): string {
  return iso.includes('T') && !/(Z|[+-]\d{2}(:?\d{2})?)$/.test(iso.slice(iso.indexOf('T'))) ? `${iso}Z` : iso;
}

function keepOnControlStack(vars: RunVars, nodeId: string, kind: 'on_event' | 'on_schedule'): void {
  const stack = temp(vars).control;
  const top = stack[stack.length - 1];
  if (top?.node !== nodeId) stack.push({ node: nodeId, kind, index: 0 });
}
