/**
 * The local client's `stream-json` lines as SSE frames (reference §4.7): text deltas (or, under a
 * JSON schema, only the `input_json_delta` fragments of the first tool-use block) become content
 * chunks, `message_delta` and the `result` give the finish reason and usage, `assistant` and `result`
 * the fallback content when no delta came; then the final chunk, a usage chunk when asked, `[DONE]`.
 * A failure (error envelope, non-zero exit, timeout, no result) throws while nothing was yielded
 * — the route answers its real status — and becomes the in-band error event once a frame went out.
 */
import { RelayFailure, type TrafficSink } from '../contracts.js';
import type { CliProcess } from './cli-process.js';
import { providerFailure } from './cli-process.js';
import { checkEnvelope, finishReasonOf, inBandError, NO_STRUCTURED_OUTPUT, sseFrame, SSE_DONE, structuredContent, usageOf, type Envelope, type OpenAiUsage, type OutputShape } from './cli-output.js';

export interface StreamCall {
  run: CliProcess;
  shape: OutputShape;
  structured: boolean;
  includeUsage: boolean;
  timeoutMs: number;
  requestId: string;
  traffic: TrafficSink;
  exitMessage: (code: number | null, envelope: Envelope | null, stderr: string) => string;
}

export async function* cliStreamFrames(call: StreamCall): AsyncGenerator<string> {
  const { shape, structured, traffic } = call;
  let sent = 0;
  // (The route writes each frame's `outbound_stream_chunk` record when stream lines are logged.)
  const frame = (value: Record<string, unknown>) => {
    sent += 1;
    return sseFrame(value);
  };
  try {
    let deltas = 0;
    let finishReason: 'stop' | 'length' = 'stop';
    let usage: OpenAiUsage | null = null;
    let fallback: string | null = null;
    let toolBlock: number | null = null;
    let toolBlockSeen = false;
    let result: Envelope | null = null;
    for await (const line of call.run.lines(call.timeoutMs)) {
      if (traffic.streamLines) traffic.write({ phase: 'provider_stream_line', request_id: call.requestId, provider: 'cli', line });
      const event = parseLine(line);
      if (!event) continue;
      if (event.type === 'stream_event' && typeof event.event === 'object' && event.event !== null) {
        const inner = event.event as Record<string, unknown>;
        if (inner.type === 'content_block_start' && structured && !toolBlockSeen) {
          const block = inner.content_block as Record<string, unknown> | undefined;
          if (block?.type === 'tool_use') {
            toolBlock = typeof inner.index === 'number' ? inner.index : 0;
            toolBlockSeen = true;
          }
        } else if (inner.type === 'content_block_delta') {
          const delta = (inner.delta ?? {}) as Record<string, unknown>;
          const text = !structured && delta.type === 'text_delta' ? delta.text
            : structured && delta.type === 'input_json_delta' && inner.index === toolBlock ? delta.partial_json
            : null;
          if (typeof text === 'string' && text) {
            yield frame(shape.chunk(text, deltas === 0));
            deltas += 1;
          }
        } else if (inner.type === 'content_block_stop' && inner.index === toolBlock) {
          toolBlock = null; // only the first tool-use block is the answer
        } else if (inner.type === 'message_delta') {
          const delta = (inner.delta ?? {}) as Record<string, unknown>;
          if (delta.stop_reason != null) finishReason = finishReasonOf(delta.stop_reason);
          usage = usageOf(inner.usage) ?? usage;
        }
      } else if (event.type === 'assistant') {
        fallback = assistantText(event, structured) ?? fallback;
      } else if (event.type === 'result') {
        result = event;
        checkEnvelope(event);
        usage = usageOf(event.usage) ?? usage;
        if (event.stop_reason != null) finishReason = finishReasonOf(event.stop_reason);
        const text = structured ? structuredContent(event) : typeof event.result === 'string' ? event.result : null;
        if (text !== null) fallback = text;
      }
    }
    const code = await call.run.exit();
    if (code !== 0) throw providerFailure(502, 'provider_failure', call.exitMessage(code, result, call.run.stderr));
    if (!result) throw providerFailure(502, 'provider_failure', 'The local command-line client ended its stream without a result.');
    if (deltas === 0) {
      if (fallback === null || (structured && fallback === '')) throw providerFailure(502, 'provider_failure', structured ? NO_STRUCTURED_OUTPUT : 'The local command-line client returned no text.');
      yield frame(shape.chunk(fallback, true));
    }
    yield frame(shape.finalChunk(finishReason));
    const finalUsage = usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    traffic.write({ phase: 'outbound_usage', request_id: call.requestId, response_id: shape.id, model: shape.model, usage: finalUsage, provider: 'cli' });
    if (call.includeUsage && shape.route === 'chat_completions') yield frame(shape.usageChunk(finalUsage));
    yield SSE_DONE;
  } catch (err) {
    // Before the first frame the caller answers a real status; after it the error goes in-band.
    if (sent === 0) throw err;
    const failure = err instanceof RelayFailure ? err : providerFailure(502, 'provider_failure', `The local command-line client failed: ${(err as Error).message}`);
    traffic.write({ phase: 'upstream_stream_error', request_id: call.requestId, event: 'error', response_id: shape.id, model: shape.model, status: failure.status, error: failure.error, provider: 'cli' });
    yield inBandError(failure.error.message, failure.error.code ?? 'provider_failure');
  } finally {
    call.run.kill();
  }
}

function parseLine(line: string): Envelope | null {
  if (!line.trim()) return null;
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Envelope) : null;
  } catch {
    return null; // unparseable lines are skipped (reference §4.7)
  }
}

function assistantText(event: Envelope, structured: boolean): string | null {
  const content = (event.message as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return null;
  if (structured) {
    const tool = content.find((b: { type?: unknown }) => b?.type === 'tool_use') as { input?: unknown } | undefined;
    return tool?.input !== undefined ? JSON.stringify(tool.input) : null;
  }
  const text = content.filter((b: { type?: unknown }) => b?.type === 'text').map((b: { text?: unknown }) => (typeof b.text === 'string' ? b.text : '')).join('');
  return text || null;
}
