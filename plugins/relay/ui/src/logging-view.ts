/**
 * The logging panel: the effective retention policy and where it comes from, the logs' usage and
 * the cleanup counters (reference §1.8), and a form that changes the policy with
 * `PUT /v1/relay/logging`. The relay validates; its refusal (422: not an integer, out of range,
 * file size above the total) is shown verbatim beside the form. The form is built once: polling
 * refreshes its values only while the user has not started editing.
 */
import { el, replaceChildren } from './dom.js';
import { bytes, when } from './format.js';
import type { LoggingStatus } from './shapes.js';

export function loggingSummary(status: LoggingStatus): HTMLElement {
  const row = (term: string, value: string, testid?: string) => [el('dt', {}, term), el('dd', testid ? { 'data-testid': testid } : {}, value)];
  const p = status.policy;
  return el('dl', { class: 'rp-facts', 'data-testid': 'logging-summary' },
    ...row('Retention', p.retention_days === 0 ? 'no age limit (size limits apply)' : `${p.retention_days} days`, 'logging-retention'),
    ...row('Size budget', `${p.max_total_mb} MiB total · ${p.max_file_mb} MiB per file`, 'logging-budget'),
    ...row('Policy from', status.policy_source === 'saved' ? 'saved policy (survives restarts)' : 'configuration'),
    ...row('Usage', `${bytes(status.usage_bytes ?? 0)} in ${status.file_count ?? 0} file${status.file_count === 1 ? '' : 's'}${status.over_budget ? ' — over budget' : ''}`, 'logging-usage'),
    ...row('Last cleanup', status.last_cleanup_at ? when(status.last_cleanup_at) : 'not yet'),
    ...row('Cleaned', `${status.deleted_files ?? 0} files, ${bytes(status.deleted_bytes ?? 0)}`),
    ...row('Dropped / oversized', `${status.dropped_records ?? 0} / ${status.oversized_records ?? 0} records`),
    ...(status.logs_dir ? row('Folder', status.logs_dir) : []),
    ...(status.last_error ? row('Last error', status.last_error, 'logging-last-error') : []),
  );
}

const FIELDS = [
  { name: 'retention_days', label: 'Keep logs for (days, 0 = no age limit)' },
  { name: 'max_total_mb', label: 'Total size budget (MiB)' },
  { name: 'max_file_mb', label: 'Largest file (MiB)' },
] as const;

export interface LoggingForm {
  element: HTMLElement;
  /** Shows the policy in the fields unless the user is editing them. */
  show(status: LoggingStatus): void;
}

/** `save` returns the new status, or throws an error whose message is shown. */
export function loggingForm(save: (policy: Record<string, unknown>) => Promise<LoggingStatus>): LoggingForm {
  let dirty = false;
  const inputs = new Map<string, HTMLInputElement>();
  const message = el('p', { class: 'rp-form-message', 'data-testid': 'logging-form-message', role: 'status', 'aria-live': 'polite' });
  const error = el('p', { class: 'rp-error', 'data-testid': 'logging-form-error', role: 'alert', hidden: true });
  const button = el('button', { type: 'submit', class: 'rp-button', 'data-testid': 'logging-save' }, 'Save policy');

  const fields = FIELDS.map(({ name, label }) => {
    const input = el('input', { id: `policy-${name}`, name, type: 'number', inputmode: 'numeric', step: 1, min: 0, required: true, class: 'rp-input', 'data-testid': `policy-${name}`, 'aria-describedby': 'logging-form-error' });
    input.addEventListener('input', () => (dirty = true));
    inputs.set(name, input);
    return el('div', { class: 'rp-field' }, el('label', { for: input.id }, label), input);
  });

  const form = el('form', { class: 'rp-form', 'data-testid': 'logging-form', 'aria-label': 'Change the logging policy', novalidate: true }, ...fields, el('div', { class: 'rp-form-actions' }, button, message), error);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // Every field as typed: the relay decides what is valid (an exact integer in range) and says why not.
    const policy: Record<string, unknown> = {};
    for (const [name, input] of inputs) if (input.value.trim() !== '') policy[name] = Number(input.value);
    button.disabled = true;
    error.hidden = true;
    message.textContent = 'Saving…';
    save(policy).then((status) => {
      dirty = false;
      fill(status);
      message.textContent = `Saved: ${status.policy.retention_days} days, ${status.policy.max_total_mb} MiB total, ${status.policy.max_file_mb} MiB per file.`;
    }, (err: unknown) => {
      message.textContent = '';
      replaceChildren(error, `Not saved: ${err instanceof Error ? err.message : String(err)}`);
      error.hidden = false;
    }).finally(() => (button.disabled = false));
  });

  function fill(status: LoggingStatus): void {
    for (const { name } of FIELDS) inputs.get(name)!.value = String(status.policy[name]);
  }

  function show(status: LoggingStatus): void {
    if (!dirty && ![...inputs.values()].includes(document.activeElement as HTMLInputElement)) fill(status);
  }

  return { element: form, show };
}
