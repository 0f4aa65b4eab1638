/**
 * The registry of trigger sources (`GET /trigger-sources`) and the one door through which a
 * definition's trigger is validated and normalised (create, revise, preview): `{source_id,
 * source_version?, config?}` → `{source_id, source_version, config}` with the config normalised by
 * its source, or a 422 of reference §3.10 naming the field.
 */
import { emailReceivedSource } from './email-source.js';
import { eventSource } from './event-source.js';
import { manualSource } from './manual-source.js';
import { triggerRefusal } from './refusal.js';
import { scheduleV1Source } from './schedule-v1.js';
import { scheduleV2Source } from './schedule-v2.js';
import type { NormaliseContext, NormalisedTrigger, TimeSchedule, TriggerSource, TriggerSourceRecord } from './trigger-source.js';

/** The keys a trigger may carry; `binding_id` is the server's (read back from a summary, ignored). */
const TRIGGER_KEYS = ['source_id', 'source_version', 'config', 'binding_id'];

export const BUILT_IN_SOURCES: readonly TriggerSource[] = [scheduleV1Source, scheduleV2Source, manualSource, emailReceivedSource, eventSource];

export class TriggerSources {
  private readonly sources = new Map<string, TriggerSource>();

  constructor(sources: readonly TriggerSource[] = BUILT_IN_SOURCES) {
    for (const source of sources) this.sources.set(`${source.record.id}@${source.record.version}`, source);
  }

  /** The rows of `GET /trigger-sources`. */
  list(): TriggerSourceRecord[] {
    return [...this.sources.values()].map((source) => source.record);
  }

  /** A source by id and version, undefined when unknown. */
  get(id: string, version: number): TriggerSource | undefined {
    return this.sources.get(`${id}@${version}`);
  }

  /**
   * Validates a definition's `trigger`. `source_version` left out means the newest version of the
   * source; `source_id` may also be written `schedule@2`.
   */
  normalise(trigger: unknown, context: NormaliseContext): NormalisedTrigger {
    if (typeof trigger !== 'object' || trigger === null || Array.isArray(trigger)) {
      throw triggerRefusal('invalid_definition', 'trigger must be an object {source_id, source_version, config}.', 'trigger');
    }
    const object = trigger as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      if (!TRIGGER_KEYS.includes(key)) {
        throw triggerRefusal('invalid_definition', `A trigger has no field "${key.slice(0, 100)}"; it takes source_id, source_version and config.`, `trigger.${key.slice(0, 100)}`);
      }
    }
    const source = this.sourceOf(object.source_id, object.source_version);
    if (!source.record.available) {
      throw triggerRefusal('unsupported_feature', `The trigger source ${source.record.id}@${source.record.version} is not available here: ${source.record.unavailable_reason ?? 'no reason given'}.`, 'trigger.source_id');
    }
    const config = source.normalise(object.config, context);
    return { source_id: source.record.id, source_version: source.record.version, config };
  }

  /** The compiled schedule of a stored binding; undefined when its source is not a time source. */
  schedule(binding: NormalisedTrigger): TimeSchedule | undefined {
    return this.get(binding.source_id, binding.source_version)?.compile?.(binding.config);
  }

  private sourceOf(sourceId: unknown, sourceVersion: unknown): TriggerSource {
    if (typeof sourceId !== 'string' || sourceId.length === 0 || sourceId.length > 200) {
      throw triggerRefusal('invalid_definition', 'trigger.source_id is required: one of the ids GET /trigger-sources lists (schedule, manual, event).', 'trigger.source_id');
    }
    let id = sourceId;
    let version: unknown = sourceVersion;
    const at = sourceId.lastIndexOf('@');
    if (at > 0 && sourceVersion === undefined) {
      id = sourceId.slice(0, at);
      version = /^[1-9][0-9]{0,5}$/.test(sourceId.slice(at + 1)) ? Number(sourceId.slice(at + 1)) : sourceId.slice(at + 1);
    }
    if (version === undefined) {
      const newest = [...this.sources.values()].filter((source) => source.record.id === id).sort((a, b) => b.record.version - a.record.version)[0];
      if (newest) return newest;
    } else if (typeof version !== 'number' || !Number.isInteger(version)) {
      throw triggerRefusal('invalid_definition', 'trigger.source_version must be a whole number (for example 2).', 'trigger.source_version');
    }
    const source = typeof version === 'number' ? this.get(id, version) : undefined;
    if (!source) {
      const known = this.list().map((record) => `${record.id}@${record.version}`).join(', ');
      const named = version === undefined ? id : `${id}@${String(version)}`;
      throw triggerRefusal('unknown_trigger_source', `There is no trigger source ${named.slice(0, 200)}; the sources are ${known}.`, 'trigger.source_id');
    }
    return source;
  }
}
