/** What an ended occurrence run becomes on its occurrence row and in attention (reference §3.8). */
import type { RunOutcome } from '@keel/plugin-gateway-runs';

/** `output.response`, else `output.answer`, else a string `output.result`; '' when none. */
export function answerOf(output: Record<string, unknown> | null): string {
  if (!output) return '';
  for (const key of ['response', 'answer']) {
    const value = output[key];
    if (typeof value === 'string') return value;
  }
  return typeof output.result === 'string' ? output.result : '';
}

/** The notification an output asks for: `notify: true` (title = automation title, body = answer) or `notify: {title, body}`; null otherwise. */
export function notifyOf(output: Record<string, unknown> | null, automationTitle: string, answer: string): { title: string; body: string | null } | null {
  const notify = output?.notify;
  if (notify === true) return { title: automationTitle, body: answer || null };
  if (notify && typeof notify === 'object' && !Array.isArray(notify)) {
    const { title, body } = notify as Record<string, unknown>;
    return {
      title: typeof title === 'string' && title.trim() ? title.slice(0, 200) : automationTitle,
      body: typeof body === 'string' ? body : answer || null,
    };
  }
  return null;
}

/** The failure sentence: the output's error, else the run's error, else "failed". */
export function failureMessage(run: Pick<RunOutcome, 'output' | 'error'>): string {
  const fromOutput = run.output?.error;
  if (typeof fromOutput === 'string' && fromOutput.trim()) return fromOutput;
  return run.error?.trim() ? run.error : 'failed';
}
