/**
 * Probes every remote provider of one listing at once, under one shared budget (seed §8): each
 * request's timeout is min(time left, remote timeout), the listing waits at most the budget in
 * total, and whatever has not answered by then is unreachable for this listing (its probe may
 * still land later and is then kept in the cache for the next one).
 */
import { VoiceError } from '../contracts.js';
import type { DiscoveryCache } from './discovery-cache.js';
import { ProbeBudget, type DiscoverySettings, type Env } from './discovery-settings.js';
import type { ProviderHandle } from './providers.js';
import { probeRemoteModels, probeRemoteVoices, type RemoteModels, type RemoteVoice } from './remote-discovery.js';

export interface RemoteAnswer {
  models: RemoteModels | null;
  voices: RemoteVoice[] | null;
  /** Why the provider counts as unreachable for this listing, or null when it answered. */
  unreachable: string | null;
  /** Failures that did not make it unreachable (a voice listing the server does not offer, say). */
  notes: string[];
}

type Outcome<T> = { state: 'ok'; value: T } | { state: 'failed'; error: unknown } | { state: 'pending' };

export async function probeRemotes(handles: readonly ProviderHandle[], settings: DiscoverySettings, cache: DiscoveryCache, env: Env): Promise<Map<string, RemoteAnswer>> {
  const budget = new ProbeBudget(settings);
  const jobs: { id: string; models: Outcome<RemoteModels>; voices: Outcome<RemoteVoice[]>; waits: Promise<unknown>[] }[] = [];
  for (const handle of handles) {
    const endpoint = handle.endpoint;
    if (!endpoint) continue;
    const id = handle.detail.id;
    const key = `${id}|${endpoint.baseUrl}`;
    const job = { id, models: { state: 'pending' } as Outcome<RemoteModels>, voices: { state: 'pending' } as Outcome<RemoteVoice[]>, waits: [] as Promise<unknown>[] };
    const track = <T>(got: ReturnType<DiscoveryCache['get']>, set: (o: Outcome<T>) => void) => {
      if (got.cached) return set({ state: 'ok', value: got.value as T });
      job.waits.push(got.promise.then((value) => set({ state: 'ok', value: value as T }), (error: unknown) => set({ state: 'failed', error })));
    };
    track<RemoteModels>(cache.get(`${key}|models`, settings.ttlS, () => probeRemoteModels(endpoint, budget.requestTimeoutMs(), modelsPath(id, env))), (o) => (job.models = o));
    track<RemoteVoice[]>(cache.get(`${key}|voices`, settings.ttlS, () => probeRemoteVoices(endpoint, () => budget.requestTimeoutMs(), voicePaths(id, env))), (o) => (job.voices = o));
    jobs.push(job);
  }
  const all = Promise.allSettled(jobs.flatMap((j) => j.waits));
  let timer: NodeJS.Timeout | undefined;
  const spent = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, budget.remainingMs());
    timer.unref();
  });
  await Promise.race([all, spent]);
  clearTimeout(timer);

  const answers = new Map<string, RemoteAnswer>();
  for (const job of jobs) {
    const answer: RemoteAnswer = { models: null, voices: null, unreachable: null, notes: [] };
    if (job.models.state === 'ok') answer.models = job.models.value;
    else answer.unreachable = failure(job.models, settings);
    if (job.voices.state === 'ok') answer.voices = job.voices.value;
    else if (job.voices.state === 'failed' && job.voices.error instanceof VoiceError && job.voices.error.code === 'remote_error') answer.notes.push(`voices: ${job.voices.error.message}`);
    else answer.unreachable ??= failure(job.voices, settings);
    answers.set(job.id, answer);
  }
  return answers;
}

function failure(outcome: Outcome<unknown>, settings: DiscoverySettings): string {
  if (outcome.state === 'pending') return `No answer within the ${settings.budgetS} s discovery budget (VOICE_DISCOVERY_TIMEOUT_S).`;
  if (outcome.state === 'failed') return (outcome.error as Error).message ?? String(outcome.error);
  return '';
}

/** `GET /models` unless `VOICE_<HOSTED|REMOTE>_MODEL_PATH` says otherwise. */
function modelsPath(id: string, env: Env): string {
  return (id === 'hosted' ? env.VOICE_HOSTED_MODEL_PATH : env.VOICE_REMOTE_MODEL_PATH)?.trim() || '/models';
}

/** Hosted: `/audio/voices`; compatible: `/audio/voices` then `/voices`, or the configured list. */
function voicePaths(id: string, env: Env): string[] {
  const configured = (id === 'hosted' ? (env.VOICE_HOSTED_VOICE_PROFILE_PATHS ?? env.VOICE_HOSTED_VOICE_PROFILE_PATH) : (env.VOICE_REMOTE_VOICE_PROFILE_PATHS ?? env.VOICE_REMOTE_VOICE_PROFILE_PATH)) ?? '';
  const paths = configured.split(',').map((p) => p.trim()).filter(Boolean).slice(0, 4);
  if (paths.length > 0) return paths;
  return id === 'hosted' ? ['/audio/voices'] : ['/audio/voices', '/voices'];
}
