/**
 * The schedule wording of reference §3.5, served by the gateway so no client computes it: interval
 * words, short local times, the rule text, `schedule_text`, the preview's first-run sentence and
 * the summary's schedule block. Fixed English names; times in the trigger's zone.
 */
import { DateTime } from 'luxon';
import type { NormalisedTrigger } from './trigger-source.js';
import { canonicalZone, wallFields } from './wall-time.js';
import { WEEKDAYS } from './schedule-v2.js';

const WEEKDAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const UNIT_WORDS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day' };

/** The summary's schedule block (reference §3.5). */
export interface ScheduleBlock {
  time_zone: string;
  schedule_rule_text: string;
  schedule_text: string;
  next_run_at?: string;
  next_run_local?: string;
}

/** "every minute", "every 30 minutes", "every <text>" when unparsable. */
export function intervalWords(every: string): string {
  const match = /^([1-9][0-9]*)([smhd])$/.exec(every);
  if (!match) return `every ${every}`;
  const unit = UNIT_WORDS[match[2]!]!;
  return match[1] === '1' ? `every ${unit}` : `every ${match[1]} ${unit}s`;
}

/** "Thu 9 Oct 08:00" in the zone; the year only when it differs from the current year there. */
export function shortLocalTime(atMs: number, zone: string, nowMs: number): string {
  const at = wallFields(zone, atMs);
  const year = at.year !== wallFields(zone, nowMs).year ? ` ${at.year}` : '';
  return `${WEEKDAY_NAMES[at.weekday]} ${at.day} ${MONTH_NAMES[at.month - 1]}${year} ${pad(at.hour)}:${pad(at.minute)}`;
}

/** The zone the trigger's times show in: a schedule@2 binding's valid `time_zone`, else the owner's. */
export function triggerZone(trigger: NormalisedTrigger, ownerZone: string): string {
  const zone = trigger.source_id === 'schedule' && trigger.source_version === 2 && typeof trigger.config.time_zone === 'string' ? canonicalZone(trigger.config.time_zone) : null;
  return zone ?? ownerZone;
}

/** Whether the trigger is a fixed UTC interval (schedule@1 with `every`, schedule@2 kind `every`). */
function isFixedInterval(trigger: NormalisedTrigger): boolean {
  return trigger.source_id === 'schedule' && typeof trigger.config.every === 'string' && (trigger.source_version === 1 || trigger.config.kind === 'every');
}

function isOnce(trigger: NormalisedTrigger): boolean {
  if (trigger.source_id !== 'schedule') return false;
  return trigger.source_version === 1 ? typeof trigger.config.every !== 'string' : trigger.config.kind === 'once';
}

/** A time as the wording shows it: a fixed UTC interval names the zone after it unless the zone is UTC. */
function shownTime(trigger: NormalisedTrigger, atMs: number, zone: string, nowMs: number): string {
  const short = shortLocalTime(atMs, zone, nowMs);
  return isFixedInterval(trigger) && zone !== 'UTC' ? `${short} (${zone})` : short;
}

/** `schedule_rule_text`: "Every day at 08:00 (Europe/Paris) · 5 runs max", "Manual runs only", ... */
export function scheduleRuleText(trigger: NormalisedTrigger, ownerZone: string, nowMs: number): string {
  const config = trigger.config;
  const zone = triggerZone(trigger, ownerZone);
  if (trigger.source_id === 'manual') return 'Manual runs only';
  if (trigger.source_id === 'email.received') return 'When an email arrives';
  if (trigger.source_id === 'event' && typeof config.name === 'string') {
    return `When the event "${config.name}" is emitted${typeof config.session_id === 'string' ? ` in session ${config.session_id}` : ''}`;
  }
  if (trigger.source_id !== 'schedule') return `${trigger.source_id}@${trigger.source_version}`;
  let text: string;
  const at = typeof config.at === 'string' ? config.at : '';
  if (isFixedInterval(trigger)) {
    text = `${capitalised(intervalWords(String(config.every)))} (UTC)`;
  } else if (isOnce(trigger)) {
    const startMs = typeof config.start_at === 'string' ? Date.parse(config.start_at) : NaN;
    text = Number.isNaN(startMs) ? 'Once, now' : `Once at ${shortLocalTime(startMs, zone, nowMs)} (${zone})`;
  } else if (config.kind === 'daily') {
    text = `Every day at ${at} (${zone})`;
  } else if (config.kind === 'weekly') {
    const days = Array.isArray(config.days) ? WEEKDAYS.filter((day) => (config.days as unknown[]).includes(day)) : [];
    text = `Every ${joined(days.map((day) => WEEKDAY_NAMES[WEEKDAYS.indexOf(day)]!))} at ${at} (${zone})`;
  } else if (config.kind === 'monthly') {
    const day = config.day;
    const which = day === 'last' ? 'the last day' : typeof day === 'number' && day > 28 ? `day ${day} (or the last day)` : `day ${String(day)}`;
    text = `Monthly on ${which} at ${at} (${zone})`;
  } else {
    return `${trigger.source_id}@${trigger.source_version}`;
  }
  if (typeof config.count === 'number') text += ` · ${config.count} run${config.count === 1 ? '' : 's'} max`;
  if (typeof config.until === 'string' && !Number.isNaN(Date.parse(config.until))) text += ` · until ${shownTime(trigger, Date.parse(config.until), zone, nowMs)}`;
  return text;
}

/** `schedule_text`: the rule text, plus " · next <short>" when a next run exists. */
export function scheduleText(trigger: NormalisedTrigger, ownerZone: string, nextRunMs: number | null, nowMs: number): string {
  const rule = scheduleRuleText(trigger, ownerZone, nowMs);
  if (nextRunMs === null) return rule;
  return `${rule} · next ${shownTime(trigger, nextRunMs, triggerZone(trigger, ownerZone), nowMs)}`;
}

/** The preview's "Runs every day at 08:00 (Europe/Paris), first run Thu 9 Oct 08:00." */
export function firstRunSentence(trigger: NormalisedTrigger, ownerZone: string, nextRunMs: number | null, nowMs: number): string {
  const rule = scheduleRuleText(trigger, ownerZone, nowMs);
  const sentence = `Runs ${rule.charAt(0).toLowerCase()}${rule.slice(1)}`;
  if (trigger.source_id !== 'schedule' || isOnce(trigger)) return `${sentence}.`;
  if (nextRunMs === null) return `${sentence}, no run left.`;
  if (nextRunMs - nowMs <= 1000) return `${sentence}, first run now.`;
  return `${sentence}, first run ${shownTime(trigger, nextRunMs, triggerZone(trigger, ownerZone), nowMs)}.`;
}

/** The summary's schedule block; `nextFireAt` is the record's `next_fire_at` (null: no next run). */
export function scheduleBlock(trigger: NormalisedTrigger, ownerZone: string, nextFireAt: string | null, nowMs: number): ScheduleBlock {
  const zone = triggerZone(trigger, ownerZone);
  const nextMs = nextFireAt === null ? NaN : Date.parse(nextFireAt);
  const hasNext = !Number.isNaN(nextMs);
  const block: ScheduleBlock = {
    time_zone: zone,
    schedule_rule_text: scheduleRuleText(trigger, ownerZone, nowMs),
    schedule_text: scheduleText(trigger, ownerZone, hasNext ? nextMs : null, nowMs),
  };
  if (hasNext) {
    block.next_run_at = new Date(nextMs).toISOString();
    block.next_run_local = localIso(nextMs, zone);
  }
  return block;
}

/** An occurrence row's `trigger.summary` (reference §3.8). */
export function occurrenceTriggerSummary(trigger: NormalisedTrigger, ownerZone: string, fire: { kind: 'schedule' | 'manual' | 'event'; tick?: number; command_id?: string }, nowMs: number): string {
  if (fire.kind === 'manual') return `manual: run now (${fire.command_id ?? ''})`;
  if (fire.kind === 'schedule' && trigger.source_id === 'schedule') {
    const rule = trigger.source_version === 1 ? (typeof trigger.config.every === 'string' ? `${intervalWords(trigger.config.every)} (UTC)` : 'once') : scheduleRuleText(trigger, ownerZone, nowMs);
    return `schedule: ${rule}, tick ${fire.tick ?? 0}`;
  }
  if (fire.kind === 'event' && typeof trigger.config.name === 'string') return `event: ${trigger.config.name}`;
  return `${trigger.source_id}@${trigger.source_version}`;
}

/** The instant as ISO 8601 with the zone's offset ("2026-10-09T08:00:00.000+02:00"). */
export function localIso(atMs: number, zone: string): string {
  return DateTime.fromMillis(atMs, { zone }).toISO() ?? new Date(atMs).toISOString();
}

function joined(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
