/**
 * The summary `memory_compact` writes (reference runtime-nodes §8.5): one chat call through the
 * inference plugin on the run's model (`_runtime.provider/model`, else the default), asking for the
 * origin's strict JSON `{summary, key_points, confidence}`; an answer that is not that JSON is
 * taken as the summary text itself.
 */
import type { InferenceService } from '@keel/plugin-inference';
import type { ContextMessage } from './context-messages.js';
import { textOf } from './memory-deps.js';

export interface CompactionSummary {
  summary: string;
  key_points: string[];
  confidence: number | null;
  model: string;
}

export interface SummaryRequest {
  account: string;
  runtime: Record<string, unknown>;
  messages: ContextMessage[];
  compressionMode: string;
  focus: string | null;
  maxMessages: number;
  messageChars: number;
  maxOutputTokens: number;
  signal: AbortSignal;
}

const LENGTH: Record<string, string> = {
  light: 'Keep most details; shorten only what repeats.',
  standard: 'Keep the facts, names, numbers, decisions and open questions; drop small talk.',
  heavy: 'Keep only what later turns must know, in a few sentences.',
};

export async function summarise(inference: InferenceService, request: SummaryRequest): Promise<CompactionSummary> {
  const provider = textOf(request.runtime.provider);
  const modelName = textOf(request.runtime.model);
  const model = provider && modelName ? `${provider}/${modelName}` : undefined;
  const system = [
    'You compress conversation history. Summarise the conversation you are given so the summary can replace it.',
    LENGTH[request.compressionMode] ?? LENGTH.standard!,
    request.focus ? `Focus on: ${request.focus}` : '',
    'Answer with strict JSON only: {"summary": "<text>", "key_points": ["<point>", ...], "confidence": <0..1>}.',
  ].filter(Boolean).join(' ');
  const transcript = request.messages.slice(-request.maxMessages).map((m) => {
    const text = textOf(m.content);
    return `${m.role}: ${text.length > request.messageChars ? `${text.slice(0, request.messageChars)}…` : text}`;
  }).join('\n');
  const out = await inference.chat(request.account, {
    model,
    messages: [{ role: 'system', content: system }, { role: 'user', content: transcript }],
    params: { temperature: 0, maxTokens: request.maxOutputTokens },
  }, { signal: request.signal });
  if (out.finishReason === 'cancelled') throw new Error('Cancelled: the memory compaction summary was stopped in flight');
  return { ...parseSummary(out.text), model: out.model };
}

function parseSummary(text: string): Omit<CompactionSummary, 'model'> {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const data = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
      if (typeof data.summary === 'string' && data.summary.trim()) {
        return {
          summary: data.summary.trim(),
          key_points: Array.isArray(data.key_points) ? data.key_points.map((p) => textOf(p)) : [],
          confidence: typeof data.confidence === 'number' ? data.confidence : null,
        };
      }
    } catch {
      // not the JSON asked for: the text itself is the summary
    }
  }
  return { summary: text.trim(), key_points: [], confidence: null };
}
