/**
 * What `keel prompt` prints: with `--output-format json` one result envelope; with `stream-json` one
 * JSON object per line — `system` init, `stream_event`s (with `--include-partial-messages`: message
 * and content-block events, `text_delta`s, or `input_json_delta`s of a `StructuredOutput` tool-use
 * block under `--json-schema`), then the whole `assistant` message and the final `result`.
 */
import { randomBytes } from 'node:crypto';
import type { CommandOutput } from '@keel/plugin-sdk';

/** The account `keel prompt` generates as (an account's endpoint profiles are its models too). */
export const DEFAULT_CLI_ACCOUNT = 'admin';
export const PROMPT_VERSION = '0.1.0';
/** `--effort` values; Keel's engines have no reasoning-effort control, so they are checked, not applied. */
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const STRUCTURED_TOOL = 'StructuredOutput';

export interface PromptUsage {
  input_tokens: number;
  output_tokens: number;
}

export interface PromptResult {
  text: string;
  structured: unknown;
  stopReason: 'end_turn' | 'max_tokens';
  usage: PromptUsage;
  sessionId: string;
}

export class PromptEvents {
  private readonly messageId = `msg_${randomBytes(12).toString('hex')}`;
  private structured = false;
  private started = false;

  constructor(
    private readonly out: CommandOutput,
    private readonly format: 'json' | 'stream-json',
    private readonly partial: boolean,
    private readonly model: string,
  ) {}

  /** The model resolved: a stream announces the message and opens its one content block. */
  start(structured: boolean): void {
    this.structured = structured;
    if (this.format !== 'stream-json') return;
    this.started = true;
    this.line({ type: 'system', subtype: 'init', model: this.model, tools: [], mcp_servers: [], session_id: null });
    if (!this.partial) return;
    this.event({ type: 'message_start', message: { id: this.messageId, type: 'message', role: 'assistant', model: this.model, content: [], stop_reason: null, usage: { input_tokens: 0, output_tokens: 0 } } });
    const block = structured ? { type: 'tool_use', id: `toolu_${randomBytes(12).toString('hex')}`, name: STRUCTURED_TOOL, input: {} } : { type: 'text', text: '' };
    this.event({ type: 'content_block_start', index: 0, content_block: block });
  }

  delta(text: string): void {
    if (this.format !== 'stream-json' || !this.partial || !text) return;
    const delta = this.structured ? { type: 'input_json_delta', partial_json: text } : { type: 'text_delta', text };
    this.event({ type: 'content_block_delta', index: 0, delta });
  }

  finish(result: PromptResult, startedAt: number): number {
    if (this.format === 'stream-json') {
      if (this.partial) {
        this.event({ type: 'content_block_stop', index: 0 });
        this.event({ type: 'message_delta', delta: { stop_reason: result.stopReason, stop_sequence: null }, usage: result.usage });
        this.event({ type: 'message_stop' });
      }
      const content = this.structured ? [{ type: 'tool_use', name: STRUCTURED_TOOL, input: result.structured }] : [{ type: 'text', text: result.text }];
      this.line({ type: 'assistant', message: { id: this.messageId, type: 'message', role: 'assistant', model: this.model, content, stop_reason: result.stopReason, usage: result.usage }, session_id: result.sessionId });
    }
    this.line({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: result.text,
      ...(this.structured ? { structured_output: result.structured } : {}),
      stop_reason: result.stopReason,
      usage: result.usage,
      model: this.model,
      duration_ms: Date.now() - startedAt,
      num_turns: 1,
      session_id: result.sessionId,
    });
    return 0;
  }

  /** A failure is an envelope too (never text on stdout a reader could take for an answer), exit 1. */
  fail(message: string, startedAt: number, usage: PromptUsage = { input_tokens: 0, output_tokens: 0 }): number {
    if (this.format === 'stream-json' && this.started && this.partial) this.event({ type: 'message_stop' });
    this.line({ type: 'result', subtype: 'error_during_execution', is_error: true, result: message, stop_reason: null, usage, model: this.model, duration_ms: Date.now() - startedAt, num_turns: 0 });
    return 1;
  }

  private event(event: Record<string, unknown>): void {
    this.line({ type: 'stream_event', event });
  }

  private line(value: Record<string, unknown>): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}
