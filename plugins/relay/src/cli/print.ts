/** The human forms of `keel relay` answers (`--json` prints the objects instead). */
import type { DoctorReport } from './doctor.js';
import type { StatusReport } from './status-report.js';

type Out = (text: string) => void;

function section(out: Out, title: string, rows: Array<[string, unknown]>): void {
  out(`\n${title}\n`);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [key, value] of rows) out(`  ${key.padEnd(width)}  ${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
}

export function printStatus(report: StatusReport, out: Out): void {
  out('Keel Relay Status\n');
  section(out, 'Relay', Object.entries(report.relay));
  const hosted = report.providers.hosted;
  const accounts = Array.isArray(hosted.accounts) ? (hosted.accounts as Array<Record<string, unknown>>) : [];
  section(out, 'Providers', [['hosted', hosted.enabled ? `enabled (${accounts.length} account(s))` : 'disabled'], ['cli', report.providers.cli.enabled ? 'enabled' : 'disabled']]);
  if (accounts.length) section(out, 'Accounts', accounts.map((a) => [String(a.name ?? a.slug ?? a.email ?? a.base_url), a]));
  section(out, 'Client', [['base URL', report.client.base_url], ['API key', report.client.api_key]]);
  out('\nNext steps\n');
  for (const step of report.next_steps) out(`  - ${step}\n`);
}

export function printDoctor(report: DoctorReport, out: Out): void {
  out('Keel Relay Doctor\n');
  const { passed, warnings, failed, skipped } = report.summary;
  section(out, 'Summary', [['Ready', report.ok ? 'yes' : 'no'], ['Checks', `${passed} passed, ${warnings} warnings, ${failed} failed, ${skipped} skipped`]]);
  out('\nChecks\n');
  for (const check of report.checks) out(`  ${check.name}: ${check.status}\n      ${check.message}\n`);
  if (report.next_steps.length) {
    out('\nNext steps\n');
    for (const step of report.next_steps) out(`  - ${step}\n`);
  }
}

interface ModelRecord {
  id?: string;
  owned_by?: string;
  relay?: { provider?: string; reasoning?: { modes?: string[] } | null; structured_output?: { types?: string[] } | null };
}

export function printModels(body: unknown, baseUrl: string, out: Out): void {
  const models = ((body as { data?: ModelRecord[] } | null)?.data ?? []).filter((m) => typeof m.id === 'string');
  out(`Models\n  endpoint ${baseUrl}/models\n`);
  const byProvider = new Map<string, ModelRecord[]>();
  for (const m of models) {
    const provider = m.relay?.provider ?? m.owned_by ?? 'other';
    byProvider.set(provider, [...(byProvider.get(provider) ?? []), m]);
  }
  const width = Math.max(0, ...models.map((m) => m.id!.length));
  for (const [provider, list] of byProvider) {
    out(`\n${provider}\n`);
    for (const m of list) {
      const extras = [
        m.relay?.reasoning?.modes?.length ? `reasoning: ${m.relay.reasoning.modes.join(', ')}` : '',
        m.relay?.structured_output?.types?.length ? `structured: ${m.relay.structured_output.types.join(', ')}` : '',
      ].filter(Boolean).join('  ');
      out(`  ${m.id!.padEnd(width)}  ${extras}`.trimEnd() + '\n');
    }
  }
  if (models.length === 0) out('\n  (no models)\n');
  out('\nUse an id as `model`; set `reasoning_effort` to one of its reasoning modes.\n');
}

export function printRefresh(body: unknown, out: Out): void {
  const accounts = (body as { accounts?: Array<Record<string, unknown>> } | null)?.accounts ?? [];
  out('Keel Relay Accounts Refreshed\n');
  for (const a of accounts) {
    const name = String(a.email ?? a.slug ?? 'account');
    const seconds = typeof a.limited_for_seconds === 'number' ? Math.ceil(a.limited_for_seconds) : null;
    out(`  ${name}: ${a.limited === true ? `still at limit${seconds !== null ? ` (resets in ~${seconds}s)` : ''}` : 'available'}\n`);
  }
  if (accounts.length === 0) out('  (no accounts)\n');
}
