/**
 * The engine's public face for the rest of the plugin: `createEngine` builds the scheduler, the
 * occurrence/attention readers (for the summary) and the routes; the command mutators are what the
 * definitions' command handlers apply inside their `store.update` before `engine.nudge()`.
 */
import type { AuthService, Clock, Logger, PluginStorage } from '@keel/plugin-sdk';
import type { RunHooks, RunLauncher } from '@keel/plugin-gateway-runs';
import type { AutomationStore } from '../store/automation-store.js';
import type { TriggerSources } from '../triggers/trigger-sources.js';
import { AutomationEngine } from './automation-engine.js';
import { engineRoutes } from './engine-routes.js';
import { OccurrenceLog } from './occurrence-log.js';
import { OccurrenceReaders } from './occurrence-readers.js';
import { SCHEDULER_DEFAULTS, type SchedulerSettings } from './scheduler-settings.js';

export { AutomationEngine, launchTargetOf } from './automation-engine.js';
export { OccurrenceLog } from './occurrence-log.js';
export { OccurrenceReaders, type AttentionBlock, type AttentionItem, type OccurrenceRow, type TypedWait } from './occurrence-readers.js';
export { rearmSchedule, requestArchive, requestRunNow, requestStop, runNowBusy } from './engine-commands.js';
export { SCHEDULER_DEFAULTS, schedulerConfigSchema, type SchedulerSettings } from './scheduler-settings.js';
export { uuid5 } from '../ids.js';
export { firstAttemptName, occurrenceRunId } from './occurrence-ids.js';
export { decideDueTicks, type MisfireDecision, type MisfireInput, type MisfireReason, type TickRange } from './misfire.js';
export { durationMs, retryDelayMs } from './retry-backoff.js';
export { AdmissionLimiter } from './admission-limiter.js';
export { occurrenceInputs, triggerLine, occurrenceSessionId } from './occurrence-inputs.js';
export { answerOf, notifyOf, failureMessage } from './occurrence-outcome.js';

export interface EngineWiring {
  storage: PluginStorage;
  store: AutomationStore;
  sources: TriggerSources;
  launcher: RunLauncher;
  hooks: RunHooks;
  auth: AuthService;
  clock: Clock;
  logger: Logger;
  settings?: Partial<SchedulerSettings>;
  /** The owner's time zone (schedule wording on occurrence rows). */
  ownerZone: (account: string) => string;
}

export function createEngine(wiring: EngineWiring) {
  const settings: SchedulerSettings = { ...SCHEDULER_DEFAULTS, ...wiring.settings };
  const log = new OccurrenceLog(wiring.storage);
  const engine = new AutomationEngine({
    store: wiring.store, log, sources: wiring.sources, launcher: wiring.launcher, hooks: wiring.hooks,
    auth: wiring.auth, clock: wiring.clock, logger: wiring.logger, settings,
  });
  const readers = new OccurrenceReaders(wiring.store, log, wiring.launcher, wiring.ownerZone, () => wiring.clock.nowMs());
  return { engine, readers, log, routes: engineRoutes(wiring.store, readers) };
}
