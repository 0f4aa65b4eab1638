/**
 * Discussions (reference gateway-surfaces §3.8): `POST /automations/{id}/discuss` opens a discussion
 * session on an occurrence — a root run of the occurrence's workflow with its frozen inputs, the
 * client's prompt as the new user turn, seeded once with the automation's conversation up to that
 * occurrence, in its own session folder with the automation's folder mounted read-only — started
 * through `runs.launcher`. Later turns are ordinary `POST /runs/start` calls in that session: a start
 * check refuses a client transcript there, and a start preparer re-stamps each turn from the
 * discussion (tags, workflow inputs are the client's, the mount) and seeds its history from the
 * discussion (seed pairs first, dropped first) whatever the client asked.
 */
import { createHash } from 'node:crypto';
import { badRequest, conflict, type Clock, type Logger, type Principal } from '@keel/plugin-sdk';
import { windowTurns, estimateMessageTokens, type LaunchTags, type LaunchTarget, type ReplayMessage, type ReplayTurn, type RunLauncher, type StartCheckInput, type StartPreparation } from '@keel/plugin-gateway-runs';
import type { WorkspaceService } from '@keel/plugin-workspaces';
import { automationError, automationNotFound, invalidRequest } from '../errors.js';
import { uuid5 } from '../ids.js';
import type { AutomationDefinition, AutomationRecord, OccurrenceRecord } from '../model.js';
import { DEFAULT_DISCUSSION_MAX_TOKENS, discussionTranscript } from './discussion-transcript.js';
import { DISCUSSION_SESSION_PREFIX, type DiscussionRecord, type DiscussionStore, type DiscussionTurnRecord } from './discussion-store.js';

export interface DiscussRequest {
  request_id: string;
  occurrence_index: number;
  prompt: string;
}

export interface DiscussResponse {
  session_id: string;
  run_id: string;
  session_kind: 'discussion';
  /** The discussion's own (writable) folder, as the owner may be told it. */
  workspace_root: string | null;
  /** The automation's folder the discussion reads read-only, as the owner may be told it; null when the occurrence had none. */
  mounted_workspace: string | null;
}

/** What discussions read of the engine's occurrences. */
export interface OccurrenceReader {
  occurrence(automationId: string, index: number): OccurrenceRecord | undefined;
  /** Rows newest first, indexes below `before` (exclusive) when given. */
  newestFirst(automationId: string, before: number | null): Iterable<OccurrenceRecord>;
}

export interface DiscussionSettings {
  /** The seed window of an automation that names none (a growing one's `context.growing.max_tokens` wins); also the window of later turns. */
  maxTokens: number;
  /** The most turns one later turn's replay reads, newest first (turns that are not replayed never fill the window). */
  maxTurnsRead: number;
}

export const DEFAULT_DISCUSSION_SETTINGS: DiscussionSettings = { maxTokens: DEFAULT_DISCUSSION_MAX_TOKENS, maxTurnsRead: 2_048 };

export interface DiscussionsDeps {
  automations: { get(id: string): AutomationRecord | undefined; revision(id: string, revision: number): AutomationDefinition | undefined };
  occurrences: OccurrenceReader;
  discussions: DiscussionStore;
  launcher: Pick<RunLauncher, 'launch' | 'outcome'>;
  workspaces: Pick<WorkspaceService, 'recorded' | 'rootOf' | 'conversationFolder' | 'maskedPath'>;
  clock: Clock;
  log: Logger;
  settings: DiscussionSettings;
}

/** Inputs of the occurrence a discussion never takes over: its turn, its trigger, and what the gateway derives per run. */
const DROPPED_INPUTS = ['prompt', 'trigger', 'workspace', 'use_session_history', '_meta', 'workflow_selection', '_gateway_workspace', 'workspace_root', 'workspace_access_mode', 'workspace_allowed_paths', 'workspace_read_only_paths', 'workspace_writable_paths', 'workspace_ignored_paths'];
/** `_runtime` keys of an occurrence a discussion drops: the automation's tool grant and what replay recorded. */
const DROPPED_RUNTIME = ['tool_policy', 'session_history', 'automation_context'];

export const TRANSCRIPT_REFUSED = 'A discussion session keeps its own history: input_data.context.messages is not accepted in it. Send only the new prompt; the earlier turns are replayed by the gateway.';
export const SCHEDULE_REFUSED = 'A discussion session takes its turns through POST /api/gateway/runs/start, one at a time: POST /runs/schedule (start_at) is not accepted in it.';
export const FOLDER_REFUSED = "A discussion session works in its own folder with the automation's folder mounted read-only: workspace_root and workspace_allowed_paths are not accepted in it.";

export class Discussions {
  constructor(private readonly deps: DiscussionsDeps) {}

  /** Opens (or, for the same request, answers again) a discussion of an occurrence. */
  async open(principal: Principal, automationId: string, body: DiscussRequest): Promise<DiscussResponse> {
    const requestId = body.request_id.trim();
    if (!requestId) throw invalidRequest('request_id', 'request_id must not be empty: send a key of your own that names this discussion (the same key opens the same discussion again).');
    if (!body.prompt.trim()) throw invalidRequest('prompt', 'prompt must not be empty: it is the first thing you ask in the discussion.');
    const automation = this.deps.automations.get(automationId);
    if (!automation || automation.account !== principal.account) throw automationNotFound(automationId);
    const runId = uuid5(automationId, `discuss:${requestId}`);
    const digest = createHash('sha256').update(JSON.stringify([body.occurrence_index, body.prompt])).digest('hex');
    let record = this.deps.discussions.get(runId);
    if (!record) {
      const occurrence = this.deps.occurrences.occurrence(automationId, body.occurrence_index);
      if (!occurrence) throw automationError(404, 'occurrence_not_found', `Automation ${automationId} has no occurrence ${body.occurrence_index}; list them with GET /api/gateway/automations/${automationId}/occurrences.`, { field: 'occurrence_index' });
      const created = await this.deps.discussions.create(await this.newDiscussion(principal, automation, occurrence, runId, requestId, body.prompt, digest));
      record = created.record;
    }
    if (record.request_digest !== digest) {
      throw automationError(409, 'identity_conflict', `request_id '${requestId}' already opened a discussion of occurrence ${record.occurrence_index} with another prompt; use a new request_id for a new discussion.`, { field: 'request_id' });
    }
    await this.launched(principal, record);
    return {
      session_id: record.session_id,
      run_id: record.run_id,
      session_kind: 'discussion',
      workspace_root: this.deps.workspaces.recorded(record.run_id)?.path ?? this.shown(this.deps.workspaces.conversationFolder(record.account, record.session_id)),
      mounted_workspace: record.mounted_workspace,
    };
  }

  /** Starts the discussion's first run unless it exists (the launcher is idempotent by run id: a retried request starts nothing new). */
  private async launched(principal: Principal, record: DiscussionRecord): Promise<void> {
    if (this.deps.launcher.outcome(record.run_id)) return;
    const context = isObject(record.inputs.context) ? record.inputs.context : {};
    const inputData: Record<string, unknown> = { ...structuredClone(record.inputs), prompt: record.first_turn, context: { ...context, messages: record.seed } };
    await this.deps.launcher.launch({ principal, target: record.target, inputData, runId: record.run_id, sessionId: record.session_id, tags: discussionTags(record) });
  }

  private async newDiscussion(principal: Principal, automation: AutomationRecord, occurrence: OccurrenceRecord, runId: string, requestId: string, prompt: string, digest: string): Promise<DiscussionRecord> {
    const definition = this.deps.automations.revision(automation.automation_id, occurrence.revision) ?? automation.definition;
    const sessionId = `${DISCUSSION_SESSION_PREFIX}${runId}`;
    const mount = await this.mountOf(occurrence);
    const ownFolder = this.shown(this.deps.workspaces.conversationFolder(principal.account, sessionId));
    const maxTokens = definition.context.mode === 'growing' ? (definition.context.growing?.max_tokens ?? this.deps.settings.maxTokens) : this.deps.settings.maxTokens;
    let transcript: ReturnType<typeof discussionTranscript>;
    try {
      transcript = discussionTranscript(
        this.deps.occurrences.newestFirst(automation.automation_id, occurrence.index + 1),
        { automation_id: automation.automation_id, title: definition.title, occurrence_index: occurrence.index, mounted_workspace: mount?.shown ?? null, workspace_root: ownFolder },
        maxTokens,
      );
    } catch (err) {
      this.deps.log.warn('the occurrences of a discussed automation could not be read', { automation_id: automation.automation_id, error: (err as Error).message });
      throw automationError(409, 'history_unavailable', `The history of automation ${automation.automation_id} cannot be read now, so no discussion was opened; try again later.`, { cause: err });
    }
    return {
      run_id: runId,
      session_id: sessionId,
      account: principal.account,
      automation_id: automation.automation_id,
      occurrence_index: occurrence.index,
      request_id: requestId,
      request_digest: digest,
      prompt,
      // With no earlier turn to carry it, the summary line opens the prompt itself.
      first_turn: transcript.messages.length ? prompt : `${transcript.summary_line}\n${prompt}`,
      target: launchTargetOf(definition),
      // The inputs the occurrence was admitted with (its revision's target for a row from before they were kept).
      inputs: frozenInputs(occurrence.input_data && Object.keys(occurrence.input_data).length ? occurrence.input_data : definition.target.input_data),
      workspace: mount ? { posture: 'allowed_only', default_mode: 'rw', folders: [{ path: mount.real, mode: 'ro' }] } : null,
      mounted_workspace: mount?.shown ?? null,
      seed: transcript.messages,
      created_at: this.deps.clock.now().toISOString(),
    };
  }

  /** The occurrence's folder (what its start recorded): the real path for the read-only row, and how the owner may be told it. */
  private async mountOf(occurrence: OccurrenceRecord): Promise<{ real: string; shown: string } | null> {
    const recorded = this.deps.workspaces.recorded(occurrence.run_id);
    if (!recorded) return null;
    try {
      return { real: await this.deps.workspaces.rootOf(recorded), shown: recorded.path };
    } catch (err) {
      // A folder removed since: the discussion runs without the mount rather than not at all.
      this.deps.log.warn('the folder of a discussed occurrence cannot be mounted', { run_id: occurrence.run_id, error: (err as Error).message });
      return null;
    }
  }

  private shown(real: string): string {
    return this.deps.workspaces.maskedPath ? this.deps.workspaces.maskedPath(real) : real;
  }

  /**
   * `runs.hooks` start check: in a session named `discussion-session:<id>`, the discussion must be the
   * caller's (else 409 session_attribution_failed), and a client transcript is refused (400) — except
   * the discussion's own seed on its first run, which only `open` launches (never a `POST /runs/start`).
   */
  readonly startCheck = async ({ principal, sessionId, inputData, body, launched }: StartCheckInput): Promise<void> => {
    if (!sessionId?.startsWith(DISCUSSION_SESSION_PREFIX)) return;
    const record = this.deps.discussions.bySession(principal.account, sessionId);
    if (!record) {
      throw conflict({ reason_code: 'session_attribution_failed', message: `Session '${sessionId.slice(0, 200)}' is not one of your discussions: open one with POST /api/gateway/automations/{automation_id}/discuss, or use another session id.` });
    }
    const messages = isObject(inputData.context) ? inputData.context.messages : undefined;
    if (messages !== undefined && !(Array.isArray(messages) && messages.length === 0)) {
      const firstRun = launched === true && !this.deps.launcher.outcome(record.run_id) && JSON.stringify(messages) === JSON.stringify(record.seed);
      if (!firstRun) throw badRequest(TRANSCRIPT_REFUSED, { code: 'invalid_request', field: 'body.input_data.context.messages' });
    }
    if (body.workspace_root !== undefined || body.workspace_allowed_paths !== undefined) throw badRequest(FOLDER_REFUSED, { code: 'invalid_request', field: 'body.workspace_root' });
    // A schedule's runs would get none of a turn's re-stamping (its preparers do not run): refused.
    if (body.start_at !== undefined) throw badRequest(SCHEDULE_REFUSED, { code: 'invalid_request', field: 'body.start_at' });
  };

  /**
   * `runs.hooks` start preparer: a later turn of a discussion is tagged as the discussion, works under
   * its mount, and gets the discussion's history (seed pairs, the first run, the earlier turns; the
   * newest whole turns in the window) whatever the client asked for.
   */
  readonly startPreparer = async (start: StartPreparation): Promise<void> => {
    if (!start.sessionId) return;
    const record = this.deps.discussions.bySession(start.principal.account, start.sessionId);
    if (!record) return;
    // The pipeline reads the tags object it handed over: filled in place.
    if (start.tags) Object.assign(start.tags, discussionTags(record));
    else start.tags = discussionTags(record);
    // The mount, whatever one-off workspace the client sent; given aside, never in the inputs (its path is inside the data folder).
    delete start.inputData.workspace;
    delete start.vars.workspace;
    if (record.workspace) start.workspace = structuredClone(record.workspace);
    if (start.runId === record.run_id) return;
    const maxTokens = this.windowOf(record);
    const { messages, report } = windowTurns(this.turnsNewestFirst(record), maxTokens, this.deps.settings.maxTurnsRead);
    const context = isObject(start.vars.context) ? start.vars.context : {};
    start.vars.context = { ...context, messages };
    const runtime = isObject(start.vars._runtime) ? start.vars._runtime : (start.vars._runtime = {});
    runtime.session_history = { seeded: messages.length, ...report, discussion: { automation_id: record.automation_id, occurrence_index: record.occurrence_index, seed_messages: record.seed.length } };
    await this.deps.discussions.addTurn(record.run_id, { run_id: start.runId, prompt: typeof start.inputData.prompt === 'string' ? start.inputData.prompt : '', at: this.deps.clock.now().toISOString() });
  };

  private windowOf(record: DiscussionRecord): number {
    const automation = this.deps.automations.get(record.automation_id);
    const context = automation?.definition.context;
    return context?.mode === 'growing' ? (context.growing?.max_tokens ?? this.deps.settings.maxTokens) : this.deps.settings.maxTokens;
  }

  /** A turn as replay reads it: from what was kept once its run ended, else from the run (kept now when it has ended). */
  private pairOf(key: [string, number], turn: DiscussionTurnRecord): ReplayTurn | null {
    if (turn.ended) return replayPair(turn, turn.ended);
    const outcome = this.deps.launcher.outcome(turn.run_id);
    if (!outcome) return null;
    const ended = { status: outcome.status, answer: answerOf(outcome.output), ts: outcome.created_at };
    if (['completed', 'failed', 'cancelled'].includes(outcome.status)) this.deps.discussions.settle(key, { ...turn, ended });
    return replayPair(turn, ended);
  }

  /** The discussion's turns newest first: its later turns, its first run, then the seed pairs (so they are dropped first). */
  private *turnsNewestFirst(record: DiscussionRecord): Generator<ReplayTurn | null> {
    for (const { key, turn } of this.deps.discussions.turnsNewestFirst(record.run_id)) yield this.pairOf(key, turn);
    for (let i = record.seed.length - 2; i >= 0; i -= 2) {
      const user = record.seed[i]!;
      const assistant = record.seed[i + 1]!;
      yield { messages: [user, assistant], tokens: estimateMessageTokens(user) + estimateMessageTokens(assistant) };
    }
  }
}

function discussionTags(record: DiscussionRecord): LaunchTags {
  return { session_kind: 'discussion', automation_id: record.automation_id, role: 'discussion' };
}

/** A turn's pair (COMPLETED with a prompt and an answer), else null. */
function replayPair(turn: DiscussionTurnRecord, ended: NonNullable<DiscussionTurnRecord['ended']>): ReplayTurn | null {
  if (ended.status !== 'completed' || ended.answer === null || !turn.prompt.trim()) return null;
  const metadata = { kind: 'session_turn', run_id: turn.run_id, ts: ended.ts };
  const user: ReplayMessage = { role: 'user', content: turn.prompt, metadata };
  const assistant: ReplayMessage = { role: 'assistant', content: ended.answer, metadata: { ...metadata } };
  return { messages: [user, assistant], tokens: estimateMessageTokens(user) + estimateMessageTokens(assistant) };
}

/** `output.response`, else `output.answer`, else a string `output.result` (as session replay reads an answer). */
function answerOf(output: Record<string, unknown> | null): string | null {
  if (!output) return null;
  for (const value of [output.response, output.answer, output.result]) if (typeof value === 'string' && value.trim()) return value;
  return null;
}

/** The workflow a definition's target names, as the launcher takes it. */
export function launchTargetOf(definition: AutomationDefinition): LaunchTarget {
  const { bundle_ref, flow_id, registry_scope } = definition.target;
  const at = bundle_ref.lastIndexOf('@');
  const target: LaunchTarget = at > 0 ? { bundle_id: bundle_ref.slice(0, at), bundle_version: bundle_ref.slice(at + 1), flow_id } : { bundle_id: bundle_ref, flow_id };
  if (registry_scope === 'tenant_catalog') target.registry_scope = 'tenant_catalog';
  return target;
}

/** The occurrence's frozen inputs a discussion starts from. */
export function frozenInputs(inputData: Record<string, unknown>): Record<string, unknown> {
  const inputs = structuredClone(inputData);
  for (const key of DROPPED_INPUTS) delete inputs[key];
  // Its transcript neither: the discussion brings its own.
  if (isObject(inputs.context)) delete inputs.context.messages;
  if (isObject(inputs._runtime)) for (const key of DROPPED_RUNTIME) delete inputs._runtime[key];
  return inputs;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
