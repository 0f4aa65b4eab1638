/** The trigger sources' public face for the rest of the plugin (definitions, engine, summary). */
export type { DueTicks, NormaliseContext, NormalisedTrigger, ScheduleState, TickAt, TimeSchedule, TriggerEvent, TriggerKind, TriggerSource, TriggerSourceRecord } from './trigger-source.js';
export { scheduleEventId, scheduleEventPayload } from './trigger-source.js';
export { BUILT_IN_SOURCES, TriggerSources } from './trigger-sources.js';
export { triggerRoutes, type TriggerRouteDeps } from './trigger-routes.js';
export { schedulePreview, type SchedulePreview } from './schedule-preview.js';
export { firstRunSentence, intervalWords, localIso, occurrenceTriggerSummary, scheduleBlock, scheduleRuleText, scheduleText, shortLocalTime, triggerZone, type ScheduleBlock } from './schedule-wording.js';
export { hostZone, ownerZoneOf } from './owner-zone.js';
export { canonicalZone } from './wall-time.js';
export { triggerRefusal, type TriggerRefusalCode } from './refusal.js';
