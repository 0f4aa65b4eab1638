/**
 * The registry of trigger sources (`GET /trigger-sources`) and the one door through which a
 * definition's trigger is validated and normalised. Interface first (the engine codes to it);
 * the built-in sources are registered by the constructor.
 */
import type { NormaliseContext, NormalisedTrigger, TimeSchedule, TriggerSource, TriggerSourceRecord } from './trigger-source.js';

export class TriggerSources {
  private readonly sources = new Map<string, TriggerSource>();

  constructor(sources: TriggerSource[] = []) {
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

  /** Validates a definition's `trigger` (`{source_id, source_version?, config?}`); throws the §3.10 422s. */
  normalise(trigger: unknown, context: NormaliseContext): NormalisedTrigger {
    void trigger; void context;
    throw new Error('not yet');
  }

  /** The compiled schedule of a stored binding; undefined when its source is not a time source. */
  schedule(binding: NormalisedTrigger): TimeSchedule | undefined {
    return this.get(binding.source_id, binding.source_version)?.compile?.(binding.config);
  }
}
