/**
 * The voice benchmark (issue 17): time to first audio and real-time factor of the local TTS engine
 * (espeak), the engine alone against `POST /v1/audio/speech` on a Keel kernel, in one run.
 *
 * The engine side is an espeak engine in this process (its own worker thread); the API side is the
 * kernel in a child process (its own event loop and espeak thread; `VOICE_BENCH_KERNEL=inprocess` boots
 * it in this process instead), called over one keep-alive connection. Both are warmed up first. Each round, for each text (a sentence, a paragraph) and
 * delivery (whole; streamed: the manager's 60/240 segmentation), the sides
 * alternate request by request, so drift lands on both. Added first audio = API minus engine, per
 * round, at the median; the target is at most 20 ms. Figures are medians over the rounds the rest of
 * the machine did not contend (all of them, flagged, when none was clean).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { splitForSpeech } from '@keel/voice';
import { keptRounds, roundsNotes, rotate } from '../common/rounds.js';
import { startServer } from '../http/spawn-server.js';
import { contendedCores, fmt, machineLine, median, verdictLine, watchOtherLoad, type Verdict } from '../ledger/kit.js';
import { ApiSide } from './api-side.js';
import { bootVoiceKernel } from './voice-kernel.js';
import { EngineSide } from './engine-side.js';
import { ADDED_FIRST_AUDIO_TARGET_MS, CHILD_ENV, TEXTS, voiceSettingsFromEnv, type TextId, type VoiceBenchSettings } from './settings.js';
import { rtf, type Timing } from './timing.js';

const KERNEL_SCRIPT = new URL('./kernel-server.js', import.meta.url);

/** The kernel the API side calls; `cpuMicros` is 0 in process (this process's own CPU counts it). */
interface KernelSide {
  port: number;
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

type Delivery = 'whole' | 'streamed';
interface Cell {
  text: TextId;
  delivery: Delivery;
}

/** One cell, one round: medians of that round's requests per side. */
export interface CellRound {
  engine: Figures;
  api: Figures | null;
  /** Cores' worth of CPU other processes used meanwhile. */
  otherCores: number;
}

interface Figures {
  firstAudioMs: number;
  totalMs: number;
  audioS: number;
  rtf: number;
}

export interface CellSummary {
  cell: Cell;
  segments: number;
  engine: Figures;
  api: Figures | null;
  addedFirstAudioMs: number | null;
  notes: string[];
}

export interface VoiceBenchSummary {
  cells: CellSummary[];
  verdicts: Verdict[];
}

/** What the API is sent for streamed delivery: the route's `stream_format: "audio"` (chunked, segment by segment). */
const API_STREAMED_BODY: Record<string, unknown> = { stream_format: 'audio' };

export async function benchVoice(settings: VoiceBenchSettings = voiceSettingsFromEnv()): Promise<VoiceBenchSummary> {
  const deliveries: Delivery[] = ['whole', 'streamed'];
  const cells: Cell[] = (Object.keys(TEXTS) as TextId[]).flatMap((text) => deliveries.map((delivery) => ({ text, delivery })));
  console.log(`voice: espeak (npm espeak-ng, WebAssembly, 1 worker thread per side), engine alone vs POST /v1/audio/speech (kernel ${settings.kernel === 'child' ? 'in a child process' : 'in this process'}); texts ${Object.keys(TEXTS).join(', ')}; `
    + `deliveries ${deliveries.join(', ')}; ${settings.rounds} round(s) of ${settings.repeats} requests per side and cell (after ${settings.warmup} warm-up), sides alternating, ${settings.gapMs} ms before each request`);
  console.log(`  ${machineLine()}`);
  // The manager's own segmentation (first segment ≤ 60 characters, then whole sentences ≤ 240).
  const segmentsOf = (cell: Cell): string[] => (cell.delivery === 'streamed' ? splitForSpeech(TEXTS[cell.text]) : [TEXTS[cell.text]]);

  const engine = new EngineSide();
  let server: KernelSide | null = null;
  let api: ApiSide | null = null;
  let apiStreams = false;
  try {
    await engine.preload();
    if (!settings.engineOnly) {
      const token = randomBytes(24).toString('hex');
      try {
        server = await startKernel(token, settings.kernel);
        api = new ApiSide(server.port, token);
        await api.speak('Hello.');
        // A build whose route sends the whole file even when asked to stream is measured whole only.
        apiStreams = (await api.speak('Hello there. A second sentence follows.', API_STREAMED_BODY)).chunked;
      } catch (err) {
        // A build without the voice plugin (or its route) still measures the engine.
        console.log(`  API side: skipped (${(err as Error).message.slice(0, 200)})`);
        api?.close();
        api = null;
      }
    }
    if (api && !apiStreams) console.log('  streamed through the API: not measured (this build answers whole audio to stream_format "audio"); engine side only');
    const apiBody = (cell: Cell): Record<string, unknown> | null => (cell.delivery === 'whole' ? {} : apiStreams ? API_STREAMED_BODY : null);

    for (const cell of cells) {
      for (let i = 0; i < settings.warmup; i++) {
        await engine.speak(segmentsOf(cell));
        const body = apiBody(cell);
        if (api && body) await api.speak(TEXTS[cell.text], body);
      }
    }

    const runs = new Map<string, CellRound[]>();
    for (let round = 0; round < settings.rounds; round++) {
      for (const cell of rotate(cells, round)) {
        const r = await measureCell(cell, segmentsOf(cell), engine, api ? { api, body: apiBody(cell) } : null, server, settings);
        const key = `${cell.text}/${cell.delivery}`;
        runs.set(key, [...(runs.get(key) ?? []), r]);
        console.log(roundLine(round + 1, cell, r));
      }
    }

    const limit = contendedCores(0.5);
    const summaries: CellSummary[] = cells.map((cell) => {
      const list = runs.get(`${cell.text}/${cell.delivery}`) ?? [];
      const { mid, rounds } = keptRounds(list, limit);
      const side = (pick: (r: CellRound) => Figures | null): Figures | null => (list.every((r) => pick(r)) ? {
        firstAudioMs: mid((r) => pick(r)!.firstAudioMs), totalMs: mid((r) => pick(r)!.totalMs), audioS: mid((r) => pick(r)!.audioS), rtf: mid((r) => pick(r)!.rtf),
      } : null);
      const apiFigures = side((r) => r.api);
      return {
        cell,
        segments: segmentsOf(cell).length,
        engine: side((r) => r.engine)!,
        api: apiFigures,
        addedFirstAudioMs: apiFigures ? mid((r) => r.api!.firstAudioMs - r.engine.firstAudioMs) : null,
        notes: roundsNotes(`${cell.text} ${cell.delivery}`, rounds, limit),
      };
    });
    const verdicts: Verdict[] = summaries.filter((s) => s.addedFirstAudioMs !== null).map((s) => ({
      label: `first audio through the API, ${s.cell.text} ${s.cell.delivery}, at most engine + ${ADDED_FIRST_AUDIO_TARGET_MS} ms`,
      pass: s.addedFirstAudioMs! <= ADDED_FIRST_AUDIO_TARGET_MS,
      detail: `${signed(s.addedFirstAudioMs!)} ms (${fmt(s.api!.firstAudioMs, 1)} vs ${fmt(s.engine.firstAudioMs, 1)} ms)`,
    }));
    console.log(`\n${summaryTable(summaries)}`);
    for (const s of summaries) for (const note of s.notes) console.log(note);
    for (const v of verdicts) console.log(verdictLine(v));
    return { cells: summaries, verdicts };
  } finally {
    api?.close();
    await engine.close();
    await server?.stop();
  }
}

async function measureCell(
  cell: Cell, segments: string[], engine: EngineSide, apiSide: { api: ApiSide; body: Record<string, unknown> | null } | null, server: KernelSide | null, settings: VoiceBenchSettings,
): Promise<CellRound> {
  const api = apiSide?.api;
  const body = apiSide?.body;
  const engineRuns: Timing[] = [];
  const apiRuns: Timing[] = [];
  const watch = watchOtherLoad();
  const cpu0 = process.cpuUsage();
  const server0 = server ? await server.cpuMicros() : 0;
  for (let i = 0; i < settings.repeats; i++) {
    // Alternate which side goes first, so neither always runs right after the other.
    const order = i % 2 === 0 ? ['engine', 'api'] : ['api', 'engine'];
    for (const side of order) {
      await sleep(settings.gapMs);
      if (side === 'engine') engineRuns.push(await engine.speak(segments));
      else if (api && body) apiRuns.push(await api.speak(TEXTS[cell.text], body));
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const serverMicros = server ? (await server.cpuMicros()) - server0 : 0;
  const otherCores = watch.stop((cpu.user + cpu.system + serverMicros) / 1000);
  return { engine: figures(engineRuns), api: apiRuns.length ? figures(apiRuns) : null, otherCores };
}

function figures(runs: Timing[]): Figures {
  return {
    firstAudioMs: median(runs.map((t) => t.firstAudioMs)),
    totalMs: median(runs.map((t) => t.totalMs)),
    audioS: median(runs.map((t) => t.audioS)),
    rtf: median(runs.map(rtf)),
  };
}

async function startKernel(token: string, place: VoiceBenchSettings['kernel']): Promise<KernelSide> {
  if (place === 'inprocess') {
    const kernel = await bootVoiceKernel(token);
    return { port: kernel.port, cpuMicros: async () => 0, stop: () => kernel.stop() };
  }
  process.env[CHILD_ENV.token] = token;
  try {
    return await startServer(KERNEL_SCRIPT, []);
  } finally {
    delete process.env[CHILD_ENV.token];
  }
}

function roundLine(round: number, cell: Cell, r: CellRound): string {
  const side = (name: string, f: Figures) => `${name} first ${fmt(f.firstAudioMs, 1)} ms, total ${fmt(f.totalMs, 1)} ms, rtf ${fmt(f.rtf, 3)}`;
  return `  round ${round} ${cell.text} ${cell.delivery}: ${side('engine', r.engine)}`
    + (r.api ? `; api ${side('', r.api).trim()} (${signed(r.api.firstAudioMs - r.engine.firstAudioMs)} ms first audio)` : '')
    + `; other load ${fmt(r.otherCores, 2)} cores`;
}

function summaryTable(summaries: CellSummary[]): string {
  const rows = [
    '| text | delivery | segments | audio s | engine first audio ms | API first audio ms | added ms | engine RTF | API RTF |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const s of summaries) {
    rows.push(`| ${s.cell.text} | ${s.cell.delivery} | ${s.segments} | ${fmt(s.engine.audioS, 2)} | ${fmt(s.engine.firstAudioMs, 1)} | ${s.api ? fmt(s.api.firstAudioMs, 1) : 'n/a'} | `
      + `${s.addedFirstAudioMs !== null ? signed(s.addedFirstAudioMs) : 'n/a'} | ${fmt(s.engine.rtf, 3)} | ${s.api ? fmt(s.api.rtf, 3) : 'n/a'} |`);
  }
  return rows.join('\n');
}

/** A difference with its sign (`+1.2`, `-3.4`). */
function signed(ms: number): string {
  return `${ms >= 0 ? '+' : ''}${fmt(ms, 1)}`;
}
