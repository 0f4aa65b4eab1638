/**
 * The automations scheduler benchmark (issue 15): schedule definitions (`schedule@1`, every minute)
 * firing under an injected `core.clock` that runs at real speed from a chosen origin, so lateness is
 * real: the time of an admission (or of the launch call) on that clock minus the time its tick was
 * due on it. The kernel runs in the benchmark process (the clock is a token override), with the
 * runs stack, the automations plugin, the real store (LMDB) and the real engine; the definitions
 * are created through `POST /api/gateway/automations` over a socket. Nothing but the kernel runs in
 * the process while fires are measured.
 *
 * Variants: `stand-in` (launches go to a recording `runs.launcher` given through the kernel's token
 * overrides: the scheduler alone, not the runs); `runs` (the real launcher and real runs of a start →
 * end flow, at a rate the runtime carries on a shared machine). Each is preceded by a baseline: the
 * same kernel with no definitions and its clock running, whose CPU per second is subtracted.
 */
import os from 'node:os';
import { core } from '@keel/plugin-sdk';
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { automationsPlugin } from '@keel/plugin-automations';
import { gatewayRunsPlugin, runHooksToken, runLauncherToken } from '@keel/plugin-gateway-runs';
import { inferencePlugin } from '@keel/plugin-inference';
import { ledgerPlugin } from '@keel/plugin-ledger';
import { workspacesPlugin } from '@keel/plugin-workspaces';
import { fmt, machineLine, quantile, verdictLine, watchOtherLoad } from '../ledger/kit.js';
import { KernelHttp } from '../steps/client.js';
import { uploadFlow } from '../steps/steps-flow.js';
import { ECHO_FLOW } from '../history/echo-flow.js';
import { BenchClock } from './bench-clock.js';
import { RecordingLauncher } from './recording-launcher.js';
import { automationsSettingsFromEnv, type AutomationsBenchSettings, type Variant } from './settings.js';
import { accountFor, emptyAccount, type FireAccount, type OccurrenceRow } from './fire-account.js';
import { threadCpuSince, threadTimes } from './thread-cpu.js';

const MINUTE = 60_000;
const TARGET_P99_MS = 50;
/** Real seconds the clock keeps running after the measured window, so ticks due inside it are admitted before counting. */
const GRACE_MS = 2_000;

export interface VariantSummary {
  variant: Variant;
  definitions: number;
  createSeconds: number;
  windowSeconds: number;
  /** Fires (launch calls for `stand-in`, admissions for `runs`) inside the window. */
  firesInWindow: number;
  firesPerSecond: number;
  expectedPerSecond: number;
  cpuMsPerSecond: number;
  baselineCpuMsPerSecond: number;
  /** (window CPU − baseline CPU for as long) / fires, in µs. */
  cpuMicrosPerFire: number;
  rawCpuMicrosPerFire: number;
  /** Admission: `fired_at` − `scheduled_at` of every fired occurrence row (1 ms resolution). */
  admission: Percentiles;
  /** `stand-in` only: the launch call's clock time − `scheduled_at`. */
  launch: Percentiles | null;
  account: FireAccount;
  /** The window's CPU by thread (Linux), largest first. */
  threads: Array<{ name: string; userMs: number; systemMs: number }>;
  otherCores: number;
  loadBefore: string;
  loadAfter: string;
}

interface Percentiles {
  p50: number;
  p99: number;
  max: number;
  n: number;
}

export async function benchAutomations(settings: AutomationsBenchSettings = automationsSettingsFromEnv()): Promise<VariantSummary[]> {
  console.log(`automations: schedule@1 every minute, first ticks spread over ${settings.spreadSeconds} s, injected clock at real speed; variants ${settings.variants.join(', ')}`);
  console.log(`  ${machineLine()}`);
  console.log(`  scheduler settings: ${Object.keys(settings.scheduler).length ? JSON.stringify(settings.scheduler) : "the engine's defaults"}`);
  const summaries: VariantSummary[] = [];
  for (const variant of settings.variants) {
    const summary = await measureVariant(variant, settings);
    console.log(`\n${summaryText(summary)}\n`);
    summaries.push(summary);
  }
  return summaries;
}

async function measureVariant(variant: Variant, s: AutomationsBenchSettings): Promise<VariantSummary> {
  const definitions = variant === 'stand-in' ? s.definitions : s.runsDefinitions;
  const minutes = variant === 'stand-in' ? s.minutes : s.runsMinutes;
  console.log(`\n[${variant}] ${definitions} definitions, ${minutes} min measured, baseline ${s.baselineSeconds} s`);

  const baselineCpuMsPerSecond = await baseline(variant, s);
  console.log(`  baseline (no definitions, clock running): ${fmt(baselineCpuMsPerSecond)} ms CPU per second`);

  const loadBefore = loadAverage();
  // A round minute ahead of the real time: the first ticks come due at it, one every 60/definitions s after.
  const origin = Math.ceil(Date.now() / MINUTE) * MINUTE + 2 * MINUTE;
  const clock = new BenchClock(origin - MINUTE);
  const { kernel, launcher } = await bootKernel(variant, clock, s, definitions);
  try {
    const { port } = await kernel.listen();
    const client = new KernelHttp(port, kernel.adminToken);
    if (variant === 'runs') await uploadFlow(port, kernel.adminToken, ECHO_FLOW);
    const spacing = (s.spreadSeconds * 1000) / definitions;
    const starts = Array.from({ length: definitions }, (_, i) => origin + Math.floor(i * spacing));
    const t0 = performance.now();
    const ids = await createDefinitions(client, starts, s.createConcurrency);
    const createSeconds = (performance.now() - t0) / 1000;
    console.log(`  ${definitions} definitions created through POST /api/gateway/automations in ${fmt(createSeconds, 1)} s (${fmt(definitions / createSeconds, 0)}/s)`);

    clock.runFrom(origin - 2_000);
    launcher?.execute();
    await clock.reach(origin);
    const end = origin + minutes * MINUTE;
    const load = watchOtherLoad();
    const threadsBefore = threadTimes();
    const cpuBefore = process.cpuUsage();
    const perfStart = performance.now();
    await clock.reach(end);
    const cpu = process.cpuUsage(cpuBefore);
    const perfEnd = performance.now();
    const threads = threadCpuSince(threadsBefore);
    // Under `node --cpu-prof`: the window in the profile's clock (µs), to read the profile of the window alone.
    if (process.execArgv.some((a) => a.startsWith('--cpu-prof'))) console.log(`  window in the CPU profile's clock: ${Math.round((perfStart - performance.now()) * 1000 + Number(process.hrtime.bigint() / 1000n))}..${Math.round((perfEnd - performance.now()) * 1000 + Number(process.hrtime.bigint() / 1000n))} µs`);
    const windowSeconds = (perfEnd - perfStart) / 1000;
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const otherCores = load.stop(cpuMs);
    await clock.reach(end + GRACE_MS);
    const pinnedAt = clock.pin();

    if (launcher) await quiet(launcher);
    const { account, rows } = await accountAll(client, ids, starts, pinnedAt, variant === 'runs');
    const admissionLateness = rows.filter((r) => r.status !== 'skipped' && r.scheduled_at).map((r) => Date.parse(r.fired_at) - Date.parse(r.scheduled_at!));
    const firesInWindow = launcher
      ? launcher.launches.filter((l) => l.atPerfMs >= perfStart && l.atPerfMs < perfEnd).length
      : rows.filter((r) => r.status !== 'skipped' && Date.parse(r.fired_at) >= origin && Date.parse(r.fired_at) < end).length;
    client.close();
    return {
      variant,
      definitions,
      createSeconds,
      windowSeconds,
      firesInWindow,
      firesPerSecond: firesInWindow / windowSeconds,
      expectedPerSecond: definitions / 60,
      cpuMsPerSecond: cpuMs / windowSeconds,
      baselineCpuMsPerSecond,
      cpuMicrosPerFire: ((cpuMs - baselineCpuMsPerSecond * windowSeconds) * 1000) / firesInWindow,
      rawCpuMicrosPerFire: (cpuMs * 1000) / firesInWindow,
      admission: percentiles(admissionLateness),
      launch: launcher ? percentiles(launcher.launches.map((l) => l.latenessMs)) : null,
      account,
      threads,
      otherCores,
      loadBefore,
      loadAfter: loadAverage(),
    };
  } finally {
    await kernel.stop();
  }
}

/** CPU per second of the same kernel with no definitions, its clock running and its engine started. */
async function baseline(variant: Variant, s: AutomationsBenchSettings): Promise<number> {
  const clock = new BenchClock(Date.now());
  const { kernel, launcher } = await bootKernel(variant, clock, s, 1);
  try {
    clock.runFrom(Date.now());
    launcher?.execute();
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const before = process.cpuUsage();
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, s.baselineSeconds * 1000));
    const cpu = process.cpuUsage(before);
    return (cpu.user + cpu.system) / 1000 / ((performance.now() - t0) / 1000);
  } finally {
    await kernel.stop();
  }
}

async function bootKernel(variant: Variant, clock: BenchClock, s: AutomationsBenchSettings, definitions: number): Promise<{ kernel: TestKernel; launcher: RecordingLauncher | null }> {
  const launcher = variant === 'stand-in' ? new RecordingLauncher(clock) : null;
  const kernel = await createTestKernel({
    plugins: [inferencePlugin, ledgerPlugin, workspacesPlugin, gatewayRunsPlugin, { plugin: automationsPlugin, config: { limits: { maxAutomationsPerAccount: definitions }, scheduler: s.scheduler } }],
    overrides: [[core.clock, clock], ...(launcher ? [[runLauncherToken, launcher] as [typeof runLauncherToken, RecordingLauncher]] : [])],
  });
  launcher?.useHooks(kernel.resolve(runHooksToken));
  return { kernel, launcher };
}

/** One definition per start time, `concurrency` requests in flight; answers their ids in order. */
async function createDefinitions(client: KernelHttp, starts: number[], concurrency: number): Promise<string[]> {
  const ids: string[] = new Array(starts.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < starts.length; i = next++) {
      const answer = await client.json<{ automation_id: string }>('POST', '/api/gateway/automations', {
        request_id: `bench-${i}`,
        title: `Bench schedule ${i}`,
        target: { bundle_ref: ECHO_FLOW.bundleId, flow_id: ECHO_FLOW.flowId, input_data: { prompt: 'tick', response: 'ok' } },
        trigger: { source_id: 'schedule', source_version: 1, config: { every: '1m', start_at: new Date(starts[i]!).toISOString() } },
      });
      ids[i] = answer.automation_id;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

/** Waits until every launched stand-in run was told ended and no launch came for a second (deadline 60 s). */
async function quiet(launcher: RecordingLauncher): Promise<void> {
  const deadline = performance.now() + 60_000;
  let seen = -1;
  while (performance.now() < deadline) {
    if (launcher.open === 0 && launcher.launches.length === seen) return;
    seen = launcher.launches.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * Every definition's occurrence rows through `GET /automations/{id}/occurrences`, checked against
 * the ticks due by `pinnedAt`. With real runs, reads again (up to 120 s) while some occurrence has
 * not finished yet.
 */
async function accountAll(client: KernelHttp, ids: string[], starts: number[], pinnedAt: number, waitForRuns: boolean): Promise<{ account: FireAccount; rows: OccurrenceRow[] }> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const perDefinition: OccurrenceRow[][] = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < ids.length; i = next++) {
        perDefinition[i] = (await client.json<{ items: OccurrenceRow[] }>('GET', `/api/gateway/automations/${ids[i]}/occurrences?limit=200`)).items;
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    const account = emptyAccount();
    perDefinition.forEach((rows, i) => accountFor(account, rows, starts[i]! <= pinnedAt ? Math.floor((pinnedAt - starts[i]!) / MINUTE) + 1 : 0));
    const settled = account.unfinished === 0 && account.missing === 0;
    if (settled || !waitForRuns || performance.now() > deadline) return { account, rows: perDefinition.flat() };
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

function percentiles(values: number[]): Percentiles {
  return { p50: quantile(values, 0.5), p99: quantile(values, 0.99), max: values.length ? Math.max(...values) : Number.NaN, n: values.length };
}

function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

function summaryText(v: VariantSummary): string {
  const a = v.account;
  const line = (name: string, p: Percentiles) => `${name.padEnd(44)}${fmt(p.p50).padStart(10)}${fmt(p.p99).padStart(10)}${fmt(p.max).padStart(10)}  (${p.n} fires)`;
  const held = v.launch ?? v.admission;
  return [
    `[${v.variant}] ${v.definitions} definitions over ${fmt(v.windowSeconds, 1)} s measured; load average ${v.loadBefore} before, ${v.loadAfter} after; other processes used ${fmt(v.otherCores)} cores meanwhile`,
    `fires/s: ${fmt(v.firesPerSecond)} achieved (${fmt(v.expectedPerSecond)} due per second)`,
    `process CPU: ${fmt(v.cpuMsPerSecond)} ms/s while firing, ${fmt(v.baselineCpuMsPerSecond)} ms/s baseline (no definitions)`,
    `CPU per fire: ${fmt(v.cpuMicrosPerFire, 0)} µs over the baseline (${fmt(v.rawCpuMicrosPerFire, 0)} µs with it)${v.variant === 'runs' ? ', the runs included' : ', the scheduler alone (no runs)'}`,
    `CPU by thread (user + system ms over the window): ${v.threads.slice(0, 6).map((t) => `${t.name} ${t.userMs} + ${t.systemMs}`).join(', ')}`,
    `${'lateness ms'.padEnd(44)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)}`,
    line('admission (fired_at - scheduled_at)', v.admission),
    ...(v.launch ? [line('launch call (clock at launch - scheduled_at)', v.launch)] : []),
    `every expected fire accounted for: ${a.missing === 0 && a.duplicated === 0 && a.extra === 0 ? 'yes' : 'NO'}: ${a.expected} ticks due, ${a.fired} fired, ${a.coalesced} coalesced, ${a.skipped} skipped, ${a.missing} missing, ${a.duplicated} twice, ${a.extra} beyond the due ones; occurrences ${JSON.stringify(a.statuses)}`,
    verdictLine({ label: `p99 lateness (${v.launch ? 'launch call' : 'admission'}) < ${TARGET_P99_MS} ms at ${fmt(v.firesPerSecond, 0)} fires/s`, pass: held.p99 < TARGET_P99_MS, detail: `${fmt(held.p99)} ms` }),
  ].join('\n');
}
