/**
 * The run's active context (`vars.context.messages`) as the memory nodes change it: the
 * `[MEMORY NOTE]` system message of a note, and where rehydrated messages go.
 */
export interface ContextMessage {
  role: string;
  content: unknown;
  timestamp?: string;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

export function messagesOf(vars: Readonly<Record<string, unknown>>): ContextMessage[] {
  const context = vars.context as { messages?: unknown } | undefined;
  return Array.isArray(context?.messages) ? (context.messages as ContextMessage[]).filter((m) => m && typeof m === 'object') : [];
}

export function setMessages(vars: Record<string, unknown>, messages: ContextMessage[]): void {
  const context = (vars.context && typeof vars.context === 'object' ? vars.context : (vars.context = {})) as Record<string, unknown>;
  context.messages = messages;
}

export function messageIdOf(message: ContextMessage): string | null {
  const id = message.metadata?.message_id;
  return typeof id === 'string' && id ? id : null;
}

/** A note as it enters the context (reference §8.2). */
export function noteMessage(spanId: string, note: string, timestamp: string): ContextMessage {
  return {
    role: 'system',
    content: `[MEMORY NOTE]\n${note}`,
    timestamp,
    metadata: { kind: 'memory_note', rehydrated: true, source_artifact_id: spanId, message_id: `memory_note:${spanId}` },
  };
}

export type Placement = 'after_summary' | 'after_system' | 'end';

export function placementOf(value: unknown): Placement {
  const text = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return text === 'after_system' || text === 'end' ? text : 'after_summary';
}

/** Where a span's messages go: the end, after the leading system messages, or after the span's own summary message. */
export function insertionIndex(messages: ContextMessage[], placement: Placement, spanId: string): number {
  if (placement === 'end') return messages.length;
  if (placement === 'after_summary') {
    const at = messages.findIndex((m) => m.metadata?.kind === 'memory_summary' && m.metadata?.source_artifact_id === spanId);
    if (at >= 0) return at + 1;
  }
  let i = 0;
  while (i < messages.length && messages[i]!.role === 'system') i++;
  return i;
}
