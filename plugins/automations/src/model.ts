/**
 * The automations plugin's stored shapes (seed 000 §2.8, §3, §4.8; reference gateway-surfaces §3).
 * One record per automation holds its definition and everything the scheduler needs; occurrences,
 * attention items, revisions and command receipts are stored beside it, keyed by automation id.
 * Shared by the definitions (routes, commands), the engine (firing, occurrences, attention) and the
 * discussions: each part owns the fields its comment names and leaves the others as it found them.
 */

export type AutomationStatus = 'active' | 'paused' | 'completed' | 'failed' | 'archived';
export const AUTOMATION_STATUSES: readonly AutomationStatus[] = ['active', 'paused', 'completed', 'failed', 'archived'];

/** The seven `automation.*` command types (reference §3.7). */
export const AUTOMATION_COMMAND_TYPES = ['automation.pause', 'automation.resume', 'automation.run_now', 'automation.stop_current', 'automation.archive', 'automation.unarchive', 'automation.revise'] as const;
export type AutomationCommandType = (typeof AUTOMATION_COMMAND_TYPES)[number];

/** A trigger as a definition binds it; `binding_id` is new on every trigger change. */
export interface TriggerBinding {
  binding_id: string;
  source_id: string;
  source_version: number;
  /** Normalised by the source (zone filled, `start_at`/`anchor` recorded for schedules). */
  config: Record<string, unknown>;
}

/** A concrete workflow (never `@default`: resolved at creation; `interface` kept for display). */
export interface AutomationTarget {
  workflow_id: string;
  bundle_ref: string;
  flow_id: string;
  registry_scope: 'private' | 'tenant_catalog';
  interface: string | null;
  /** Frozen inputs; `workspace: {configured: false}` means "the owner's default at each occurrence". */
  input_data: Record<string, unknown>;
}

/** What a run of missed ticks after downtime (or during a long occurrence) becomes. */
export type MisfirePolicy = 'coalesce' | 'skip' | 'all';

export interface AutomationPolicy {
  serial: true;
  /** `coalesce` (the reference's: one occurrence for the latest tick), `skip` (none; the next tick after now), `all` (each, one at a time, up to `scheduler.maxCatchUp`). */
  misfire: MisfirePolicy;
  failure: 'continue';
  retry: { max_attempts: number; backoff: { initial: string; factor: number; max: string } };
  tool_approval: 'auto' | 'ask';
}

export interface AutomationContext {
  mode: 'independent' | 'growing';
  growing?: { max_tokens?: number };
}

export interface AutomationDefinition {
  schema_version: 2;
  automation_id: string;
  /** Starts at 1, +1 per applied revise. */
  revision: number;
  title: string;
  target: AutomationTarget;
  trigger: TriggerBinding;
  context: AutomationContext;
  policy: AutomationPolicy;
  notify: { channels: string[] };
  /** `automation:<automation_id>`. */
  session_id: string;
  created_at: string;
  archived_at: string | null;
}

/** The occurrence being worked on now (at most one: `serial`). Owned by the engine. */
export interface CurrentOccurrence {
  index: number;
  /** The run id of the current attempt (deterministic, see the engine's occurrence ids). */
  run_id: string;
  attempt: number;
  status: 'admitted' | 'running' | 'backoff';
  /** When the next attempt starts (status `backoff`). */
  retry_at: string | null;
  fired_at: string;
  /** `automation.stop_current` asked to stop it (the command id), else null/absent (engine: cancels, then `cancelled`). */
  stop_command_id?: string | null;
  /** The cancel of the running attempt was queued (so a restart does not queue it again). */
  cancel_sent?: boolean;
}

/** A firing asked for but not yet admitted: `run_now`, an event, a caught-up tick (policy `all`). Owned by the engine once queued. */
export interface PendingFire {
  kind: 'manual' | 'event' | 'schedule';
  /** `manual:<command_id>`, `<source>@<v>:<binding_id>:<event_id>`, `schedule@N:<binding_id>:<tick>`. */
  event_id: string;
  requested_at: string;
  /** What the occurrence receives as `input_data.trigger` (schedule: `{tick, scheduled_at}`; event: the envelope). */
  envelope: Record<string, unknown>;
  /** The command that asked (manual). */
  command_id?: string;
}

export interface AutomationRecord {
  automation_id: string;
  /** The owner: runs start as `auth.accountOf(account)`. */
  account: string;
  tenant: string;
  request_id: string;
  /** Digest of the create request (same request_id, other digest → 409 identity_conflict). */
  request_digest: string;
  definition: AutomationDefinition;
  status: AutomationStatus;
  /** Set when the gateway paused it (target workflow unavailable); cleared by resume. */
  paused_reason: string | null;
  /** The trigger source's own state (schedule: `{anchor, tick, scheduled_count, exhausted}`); owned by the engine and the source. */
  trigger_state: Record<string, unknown>;
  /** The next scheduled tick's time (UTC ISO), null when none (manual, exhausted, paused, archived). */
  next_fire_at: string | null;
  /**
   * When the engine must look at this automation next (UTC ISO), indexed by the store. The engine
   * sets exact times; any other part that needs it to act (run_now, resume, archive, revise) sets
   * it to now and nudges it.
   */
  wake_at: string | null;
  current: CurrentOccurrence | null;
  pending: PendingFire[];
  /** Logical occurrences allocated so far (the last one's index). */
  occurrence_count: number;
  /** The highest attention item sequence allocated (`att1:<seq>`). */
  attention_seq: number;
  /** Receipts issued so far (`seq` of the next command is this + 1). */
  command_seq: number;
  /** An `archive` waits for the current occurrence to finish before the status becomes archived. */
  archive_pending: boolean;
  created_at: string;
  updated_at: string;
}

/** A stored command receipt (idempotency by command_id per automation). */
export interface CommandReceiptRecord {
  command_id: string;
  type: AutomationCommandType;
  /** Digest over type, payload without expected_revision, and expected_revision. */
  digest: string;
  seq: number;
  /** `applied` or `rejected` with the reason (the reference's `automation.command_result`). */
  result: 'applied' | 'rejected';
  reason_code: string | null;
  message: string | null;
  at: string;
}

export type OccurrenceStatus = 'admitted' | 'running' | 'waiting' | 'backoff' | 'completed' | 'failed' | 'cancelled' | 'skipped';

/** One logical occurrence (its latest attempt). Owned by the engine. */
export interface OccurrenceRecord {
  automation_id: string;
  index: number;
  run_id: string;
  attempts: number;
  revision: number;
  event_id: string;
  trigger_kind: PendingFire['kind'];
  fired_at: string;
  /** When the tick was due (schedule), for lateness. */
  scheduled_at: string | null;
  finished_at: string | null;
  status: OccurrenceStatus;
  /** The user turn as the occurrence received it (`[Trigger ...]` line + prompt). */
  user_turn: string;
  /** The answer once finished (`output.response`, else `answer`, else a string `result`). */
  answer: string;
  failure: { reason_code: string; message: string; attempts: number } | null;
  /** Ticks this occurrence stands for beyond its own (misfire `coalesce`) or skipped (`skip`): every expected fire is accounted for. */
  coalesced: { first_tick: number; last_tick: number; missed_count: number; reason: string } | null;
  /** The session the occurrence ran in. */
  session_id: string;
  notify: unknown;
  /** The inputs as frozen at admission (every attempt launches exactly these; discussions reuse them); `{}` on a skipped row. */
  input_data: Record<string, unknown>;
  /** The binding's source at the fire (`schedule@2`, `manual@1`, `event@1`), for `trigger.summary`. */
  source: string;
  /** The schedule tick the occurrence fired for (or the last tick of a skipped range), else null. */
  tick: number | null;
  /** The command that asked for a manual fire, else null. */
  command_id: string | null;
}

/** An attention item (reference §3.8): monotonic `seq` per automation; cursor `att1:<seq>`. Owned by the engine. */
export interface AttentionRecord {
  automation_id: string;
  seq: number;
  kind: 'notify' | 'failure';
  run_id: string;
  index: number;
  at: string;
  title: string;
  body: string | null;
}

/** `{detail: {reason_code, message, field?, command_id?}}` reason codes (reference §3.10). */
export type AutomationReasonCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'automation_not_found'
  | 'occurrence_not_found'
  | 'revision_conflict'
  | 'automation_busy'
  | 'invalid_state'
  | 'identity_conflict'
  | 'cursor_expired'
  | 'history_unavailable'
  | 'invalid_request'
  | 'invalid_definition'
  | 'unsupported_feature'
  | 'unknown_trigger_source'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error';
