/**
 * Wraps one `/v1` call: refuses it when an admin switched the API off, and records it in the
 * request log (model, timing, tokens, outcome; never content or keys) however it ends.
 */
import { randomUUID } from 'node:crypto';
import { isHttpError, serviceUnavailable, type RouteContext } from '@keel/plugin-sdk';
import type { ApiSettings } from '../api-settings.js';
import type { RequestLog, RequestLogEntry } from '../request-log.js';

export type CallNote = Partial<Pick<RequestLogEntry, 'model' | 'provider' | 'ttft_ms' | 'finish_reason' | 'prompt_tokens' | 'completion_tokens'>>;

export class CallRecorder {
  constructor(private readonly settings: ApiSettings, private readonly log: RequestLog) {}

  async record<T>(ctx: RouteContext<unknown, unknown, unknown>, endpoint: string, stream: boolean, run: (note: CallNote) => Promise<T>): Promise<T> {
    if (!this.settings.get().enabled) {
      throw serviceUnavailable('The OpenAI-compatible API is switched off; an admin can switch it on with POST /api/gateway/admin/core-endpoint/enable.', { code: 'api_disabled' });
    }
    const started = performance.now();
    const note: CallNote = {};
    let status = 200;
    let errorCode: string | null = null;
    try {
      const result = await run(note);
      if (ctx.signal.aborted && note.finish_reason === 'cancelled') {
        status = 499;
        errorCode = 'client_closed';
      }
      return result;
    } catch (err) {
      status = isHttpError(err) ? err.status : 500;
      errorCode = isHttpError(err) ? err.code ?? 'error' : 'internal_error';
      throw err;
    } finally {
      this.log.add({
        id: randomUUID(),
        at: new Date().toISOString(),
        account: ctx.principal?.account ?? '',
        endpoint,
        model: note.model ?? null,
        provider: note.provider ?? null,
        stream,
        status,
        duration_ms: Math.round(performance.now() - started),
        ttft_ms: note.ttft_ms != null ? Math.round(note.ttft_ms) : null,
        finish_reason: note.finish_reason ?? null,
        prompt_tokens: note.prompt_tokens ?? null,
        completion_tokens: note.completion_tokens ?? null,
        error_code: errorCode,
      });
    }
  }
}

export function completionId(prefix: string): string {
  return `${prefix}-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

export function unixNow(): number {
  return Math.floor(Date.now() / 1000);
}
