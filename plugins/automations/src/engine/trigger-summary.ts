/**
 * `trigger.summary` of an occurrence row (reference §3.8), from the binding in force at the
 * occurrence's revision: schedule@2 "schedule: <rule text>, tick N"; schedule@1 "schedule: <interval
 * words> (UTC), tick N" or "schedule: once, tick N"; manual "manual: run now (<command_id>)"; other
 * "<source>@<version>".
 */
import type { OccurrenceRecord, TriggerBinding } from '../model.js';

/** The schedule wording of a binding (the triggers' rule text), when the plugin has one. */
export type RuleText = (binding: TriggerBinding) => string;

const UNIT_WORDS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day' };

/** "Every minute", "Every 30 minutes"; anything unparsable "Every <text>". */
export function intervalWords(every: string): string {
  const match = /^([1-9][0-9]*)([smhd])$/.exec(every);
  if (!match) return `Every ${every}`;
  const n = Number(match[1]);
  const unit = UNIT_WORDS[match[2]!]!;
  return n === 1 ? `Every ${unit}` : `Every ${n} ${unit}s`;
}

export function triggerSummary(row: OccurrenceRecord, binding: TriggerBinding | null, ruleText?: RuleText): string {
  if (row.trigger_kind === 'manual') return `manual: run now (${row.command_id ?? row.event_id.replace(/^manual:/, '')})`;
  if (row.trigger_kind === 'schedule' && binding) {
    const tick = row.tick ?? 0;
    if (binding.source_id === 'schedule' && binding.source_version === 1) {
      const every = binding.config.every;
      return typeof every === 'string' ? `schedule: ${intervalWords(every)} (UTC), tick ${tick}` : `schedule: once, tick ${tick}`;
    }
    if (binding.source_id === 'schedule') {
      const every = binding.config.every;
      const text = ruleText ? ruleText(binding) : typeof every === 'string' ? `${intervalWords(every)} (UTC)` : `${String(binding.config.kind ?? 'schedule')}`;
      return `schedule: ${text}, tick ${tick}`;
    }
  }
  return row.source;
}
