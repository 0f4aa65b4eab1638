/**
 * Recent notable traffic (reference §5.3): compatibility adaptations with the ignored parameters,
 * failovers from → to, retries and skipped retries, upstream stream errors, account choices and
 * refreshes (with the holds they placed or released); any other kind shows
 * its phase and fields. Newest first.
 */
import { el } from './dom.js';
import { clock } from './format.js';
import type { TrafficRecord } from './shapes.js';

const text = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function describe(record: TrafficRecord): { kind: string; title: string; detail: string } {
  const r = record;
  switch (r.phase) {
    case 'compatibility_adaptation': {
      const ignored = Array.isArray(r.ignored_parameters) ? r.ignored_parameters.map(text).join(', ') : text(r.ignored_parameters);
      return { kind: 'adaptation', title: `Ignored parameters: ${ignored || '(none listed)'}`, detail: text(r.reason) };
    }
    case 'account_failover':
      return { kind: 'failover', title: `Failover ${text(r.from_account)} → ${text(r.to_account)}`, detail: [text(r.reason), r.cooldown_seconds !== undefined ? `cooldown ${text(r.cooldown_seconds)} s` : ''].filter(Boolean).join(' · ') };
    case 'retry_backoff':
      return { kind: 'retry', title: `Retry ${text(r.attempt)}/${text(r.max_attempts)} after ${text(r.delay_seconds)} s (status ${text(r.status_code)})`, detail: text(r.reason) };
    case 'retry_skipped':
      return { kind: 'retry', title: `Retry skipped: ${text(r.reason)} (status ${text(r.status_code)})`, detail: r.resets_in_seconds !== undefined ? `resets in ${text(r.resets_in_seconds)} s` : '' };
    case 'upstream_stream_error': {
      const error = r.error as { message?: unknown; code?: unknown } | undefined;
      return { kind: 'stream-error', title: `Stream error${r.model ? ` on ${text(r.model)}` : ''}${r.status !== undefined ? ` (${text(r.status)})` : ''}`, detail: text(error?.message ?? error) };
    }
    case 'accounts_refresh': {
      const accounts = Array.isArray(r.accounts) ? (r.accounts as Array<{ account?: unknown; was_limited?: unknown; limited?: unknown }>) : [];
      const held = accounts.filter((a) => a.limited === true).length;
      const changes = accounts.filter((a) => a.was_limited !== a.limited).map((a) => `${text(a.account)} ${a.limited ? 'put on hold' : 'released'}`);
      return { kind: 'refresh', title: `Accounts refreshed: ${accounts.length} probed, ${held} on hold`, detail: changes.join(' · ') };
    }
    case 'account_selected':
      return { kind: 'selected', title: `Selected ${text(r.account)}${r.attempt ? ` (attempt ${text(r.attempt)})` : ''}`, detail: '' };
    default: {
      const { phase, request_id: _id, logged_at: _at, ...rest } = r;
      return { kind: 'other', title: text(phase) || 'record', detail: JSON.stringify(rest) };
    }
  }
}

const KIND_LABELS: Record<string, string> = { adaptation: 'adapted', failover: 'failover', retry: 'retry', 'stream-error': 'stream error', selected: 'selected', refresh: 'refresh', other: 'event' };

export function trafficList(records: TrafficRecord[]): HTMLElement {
  if (records.length === 0) return el('p', { class: 'rp-muted', 'data-testid': 'traffic-empty' }, 'Nothing notable yet: no adaptation, failover, retry or stream error since the relay started.');
  return el('ol', { class: 'rp-traffic', 'data-testid': 'traffic-list' },
    ...records.map((record) => {
      const { kind, title, detail } = describe(record);
      return el('li', { class: `rp-traffic-row rp-kind-${kind}`, 'data-testid': 'traffic-record', 'data-phase': text(record.phase) },
        el('span', { class: 'rp-traffic-time' }, clock(record.logged_at)),
        el('span', { class: `rp-badge rp-badge-${kind === 'stream-error' ? 'danger' : kind === 'failover' || kind === 'retry' ? 'warn' : 'neutral'}` }, KIND_LABELS[kind] ?? kind),
        el('span', { class: 'rp-traffic-title' }, title),
        detail ? el('span', { class: 'rp-traffic-detail' }, detail) : null,
        record.request_id ? el('code', { class: 'rp-traffic-id' }, text(record.request_id)) : null,
      );
    }),
  );
}
