/**
 * The Responses answer rebuilt from the upstream chat stream: the `response` object (non-stream)
 * and the Responses SSE events (`response.created`, `response.in_progress`,
 * `response.output_item.added`, `response.content_part.added`, `response.output_text.delta`,
 * `response.function_call_arguments.delta`, the matching `.done` events, `response.completed`, or
 * `response.failed` then `error`). Usage is given in the Responses names.
 */
import { randomBytes } from 'node:crypto';
import type { OpenAiErrorObject } from '../contracts.js';
import { responsesUsage, type AnswerAccumulator } from './answer-accumulator.js';
import type { UpstreamChunk } from './upstream-chunks.js';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** The fields of the `response` object that echo the request. */
export interface ResponseEcho {
  model: string;
  instructions: string | null;
  tools: unknown[];
  tool_choice: unknown;
  parallel_tool_calls: boolean;
  text: unknown;
  reasoning: unknown;
  metadata: Record<string, unknown>;
  user: string | null;
  conversation: { id: string } | null;
}

export function responseEchoOf(body: Record<string, unknown>, conversationId: string | undefined): ResponseEcho {
  return {
    model: String(body.model),
    instructions: typeof body.instructions === 'string' ? body.instructions : null,
    tools: Array.isArray(body.tools) ? body.tools : [],
    tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: body.parallel_tool_calls !== false,
    text: body.text ?? { format: { type: 'text' } },
    reasoning: body.reasoning ?? { effort: null, summary: null },
    metadata: typeof body.metadata === 'object' && body.metadata !== null ? (body.metadata as Record<string, unknown>) : {},
    user: typeof body.user === 'string' ? body.user : null,
    conversation: conversationId ? { id: conversationId } : null,
  };
}

/** `length` and `content_filter` finishes are incomplete answers (real partial output, billed). */
function statusOf(finish: string | null): { status: 'completed' | 'incomplete'; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

function responseShell(id: string, createdAt: number, echo: ResponseEcho, status: string): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: echo.instructions,
    max_output_tokens: null,
    model: echo.model,
    output: [],
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    store: false,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    truncation: 'disabled',
    usage: null,
    user: echo.user,
    metadata: echo.metadata,
    ...(echo.conversation ? { conversation: echo.conversation } : {}),
  };
}

function messageItem(id: string, text: string, status: string): Record<string, unknown> {
  return { id, type: 'message', status, role: 'assistant', content: text === '' && status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

function callItem(id: string, callId: string, name: string, args: string, status: string): Record<string, unknown> {
  return { id, type: 'function_call', status, call_id: callId, name, arguments: args };
}

/** The output items of a finished answer: the message (when there is text) then each tool call. */
export function outputItemsOf(answer: AnswerAccumulator): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  if (answer.text !== '' || (answer.toolCalls.length === 0 && answer.refusal === null)) items.push(messageItem(`msg_${hex(16)}`, answer.text, 'completed'));
  if (answer.refusal !== null) items.push({ id: `msg_${hex(16)}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: answer.refusal }] });
  for (const call of answer.toolCalls) items.push(callItem(`fc_${hex(16)}`, call.id, call.name, call.arguments, 'completed'));
  return items;
}

/** The non-stream `response` object. */
export function responseObject(id: string, createdAt: number, echo: ResponseEcho, answer: AnswerAccumulator, output = outputItemsOf(answer)): Record<string, unknown> {
  const { status, incomplete_details } = statusOf(answer.finish);
  return { ...responseShell(id, createdAt, echo, status), incomplete_details, output, usage: responsesUsage(answer.usage) };
}

export function newResponseId(): string {
  return `resp_${hex(24)}`;
}

interface OpenItem {
  kind: 'message' | 'call';
  item: Record<string, unknown>;
  outputIndex: number;
  text: string;
  callIndex?: number;
}

/**
 * Turns upstream chat chunks into Responses events, one `event:`/`data:` frame each, numbered by
 * `sequence_number`. Feed it every chunk (`chunk`), then `completed()` or `failed()`.
 */
export class ResponsesEventWriter {
  private sequence = 0;
  private readonly output: Array<Record<string, unknown>> = [];
  private open: OpenItem | null = null;
  private readonly callsSeen = new Set<number>();

  constructor(
    readonly id: string,
    private readonly createdAt: number,
    private readonly echo: ResponseEcho,
    readonly answer: AnswerAccumulator,
  ) {}

  /** `response.created` and `response.in_progress`. */
  start(): string[] {
    const shell = responseShell(this.id, this.createdAt, this.echo, 'in_progress');
    return [this.frame('response.created', { response: shell }), this.frame('response.in_progress', { response: shell })];
  }

  chunk(chunk: UpstreamChunk): string[] {
    this.answer.add(chunk);
    const frames: string[] = [];
    for (const choice of chunk.choices ?? []) {
      const text = typeof choice.delta?.content === 'string' ? choice.delta.content : typeof choice.text === 'string' ? choice.text : '';
      if (text !== '') {
        if (this.open?.kind !== 'message') {
          frames.push(...this.closeOpen());
          frames.push(...this.openMessage());
        }
        this.open!.text += text;
        frames.push(this.frame('response.output_text.delta', { item_id: this.open!.item.id, output_index: this.open!.outputIndex, content_index: 0, delta: text, logprobs: [] }));
      }
      for (const call of choice.delta?.tool_calls ?? []) {
        const index = typeof call.index === 'number' ? call.index : this.callsSeen.size;
        if (!this.callsSeen.has(index)) {
          frames.push(...this.closeOpen());
          this.callsSeen.add(index);
          const entry = this.answer.toolCallAt(index)!;
          const item = callItem(`fc_${hex(16)}`, entry.id, entry.name, '', 'in_progress');
          this.open = { kind: 'call', item, outputIndex: this.output.length, text: '', callIndex: index };
          this.output.push(item);
          frames.push(this.frame('response.output_item.added', { output_index: this.open.outputIndex, item }));
        }
        // Pieces of a call that is no longer the open item (interleaved upstream deltas) only reach the final item.
        if (this.open?.callIndex !== index) continue;
        const piece = call.function?.arguments ?? '';
        this.open.text += piece;
        if (piece !== '') frames.push(this.frame('response.function_call_arguments.delta', { item_id: this.open.item.id, output_index: this.open.outputIndex, delta: piece }));
      }
    }
    return frames;
  }

  /** Closes the open item and ends with `response.completed` (status `incomplete` on a length finish). */
  completed(): string[] {
    const frames = this.closeOpen();
    const { status, incomplete_details } = statusOf(this.answer.finish);
    const response = { ...responseShell(this.id, this.createdAt, this.echo, status), incomplete_details, output: this.output, usage: responsesUsage(this.answer.usage) };
    frames.push(this.frame(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
    return frames;
  }

  /** `response.failed` with the error, then the `error` event every Responses client watches for. */
  failed(error: OpenAiErrorObject): string[] {
    const code = error.code ?? error.type ?? 'upstream_error';
    const response = { ...responseShell(this.id, this.createdAt, this.echo, 'failed'), output: this.output, error: { code, message: error.message } };
    return [
      this.frame('response.failed', { response }),
      this.frame('error', { error: { ...error, code, type: error.type ?? code } , code, message: error.message, param: error.param ?? null }),
    ];
  }

  /** The finished output items (for the conversation store). */
  get outputItems(): Array<Record<string, unknown>> {
    return this.output;
  }

  private openMessage(): string[] {
    const id = `msg_${hex(16)}`;
    const item = messageItem(id, '', 'in_progress');
    this.open = { kind: 'message', item, outputIndex: this.output.length, text: '' };
    this.output.push(item);
    return [
      this.frame('response.output_item.added', { output_index: this.open.outputIndex, item }),
      this.frame('response.content_part.added', { item_id: id, output_index: this.open.outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }),
    ];
  }

  private closeOpen(): string[] {
    const open = this.open;
    if (!open) return [];
    this.open = null;
    const base = { item_id: open.item.id, output_index: open.outputIndex };
    if (open.kind === 'message') {
      const part = { type: 'output_text', text: open.text, annotations: [], logprobs: [] };
      const done = messageItem(String(open.item.id), open.text, 'completed');
      this.output[open.outputIndex] = done;
      return [
        this.frame('response.output_text.done', { ...base, content_index: 0, text: open.text, logprobs: [] }),
        this.frame('response.content_part.done', { ...base, content_index: 0, part }),
        this.frame('response.output_item.done', { output_index: open.outputIndex, item: done }),
      ];
    }
    const entry = this.answer.toolCallAt(open.callIndex!);
    const done = { ...open.item, name: entry?.name ?? open.item.name, arguments: entry?.arguments ?? open.text, status: 'completed' };
    this.output[open.outputIndex] = done;
    return [
      this.frame('response.function_call_arguments.done', { ...base, arguments: done.arguments }),
      this.frame('response.output_item.done', { output_index: open.outputIndex, item: done }),
    ];
  }

  private frame(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...fields })}\n\n`;
  }
}
