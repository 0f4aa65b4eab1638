/**
 * `keel relay doctor [--skip-response]` (reference §6): checks in order — config, relay_token, one
 * upstream_auth per account (so a dead standby is not masked), upstream_models, upstream_response
 * (one tiny streamed chat call; skipped with --skip-response or without a model), cli. Upstream
 * accounts are called directly, not through a running relay. `ok` is false when any check failed.
 */
import { accountKeyOf, accountNameOf } from './status-report.js';
import type { RelayCliServices } from './relay-cli-services.js';

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface DoctorCheck {
  name: string;
  status: CheckStatus;
  message: string;
  next_steps?: string[];
  data?: Record<string, unknown>;
}

export interface DoctorReport {
  ok: boolean;
  summary: { passed: number; warnings: number; failed: number; skipped: number };
  checks: DoctorCheck[];
  next_steps: string[];
}

const UPSTREAM_TIMEOUT_MS = 20_000;

export async function runDoctor(cli: RelayCliServices, options: { skipResponse: boolean }): Promise<DoctorReport> {
  const { config, token } = cli;
  const checks: DoctorCheck[] = [];
  const anyProvider = (config.hosted.enabled && config.hosted.accounts.length > 0) || config.cli.enabled;
  checks.push(anyProvider
    ? { name: 'config', status: 'pass', message: `hosted ${config.hosted.enabled ? `on (${config.hosted.accounts.length} account(s))` : 'off'}, cli ${config.cli.enabled ? 'on' : 'off'}.` }
    : { name: 'config', status: 'warn', message: 'No provider can answer: no hosted account is configured and the cli runtime is off.', next_steps: ['Add an account under relay.hosted.accounts or set relay.cli.enabled.'] });

  if (!config.auth.requireBearerAuth) checks.push({ name: 'relay_token', status: 'warn', message: 'Bearer auth is off (open mode): anyone who reaches the port may use the relay.', next_steps: ['Set relay.auth.requireBearerAuth to true unless the relay listens on loopback only.'] });
  else if (token.value) checks.push({ name: 'relay_token', status: 'pass', message: `present (${token.source === 'env' ? 'RELAY_TOKEN' : token.file}).` });
  else if (config.auth.autoGenerateToken) checks.push({ name: 'relay_token', status: 'warn', message: `missing; the relay creates ${token.file} at its first start.` });
  else checks.push({ name: 'relay_token', status: 'fail', message: `missing: the relay refuses to start without ${token.file} or RELAY_TOKEN.`, next_steps: [`Write a token into ${token.file} or set RELAY_TOKEN.`] });

  let firstModel: { account: (typeof config.hosted.accounts)[number]; key: string; model: string } | null = null;
  let modelCount = 0;
  if (!config.hosted.enabled) {
    checks.push({ name: 'upstream_auth', status: 'skip', message: 'The hosted runtime is off.' });
  } else if (config.hosted.accounts.length === 0) {
    checks.push({ name: 'upstream_auth', status: 'skip', message: 'No hosted account is configured.' });
  }
  for (const account of config.hosted.enabled ? config.hosted.accounts : []) {
    const name = `upstream_auth${config.hosted.accounts.length > 1 ? `:${accountNameOf(account)}` : ''}`;
    const { key, source } = accountKeyOf(account);
    if (!key) {
      checks.push({ name, status: 'fail', message: `account ${accountNameOf(account)} has no key (${source}).`, next_steps: ['Set apiKey or apiKeyEnv on the account.'] });
      continue;
    }
    const listed = await callUpstream(`${account.baseUrl.replace(/\/+$/, '')}/models`, key, 'GET');
    if (!listed.ok) {
      checks.push({ name, status: 'fail', message: `account ${accountNameOf(account)}: GET /models ${listed.message}.`, data: { base_url: account.baseUrl } });
      continue;
    }
    const ids = modelIdsOf(listed.body);
    checks.push({ name, status: 'pass', message: `account ${accountNameOf(account)} answers (${ids.length} models).`, data: { base_url: account.baseUrl, model_count: ids.length } });
    if (!firstModel && ids.length) firstModel = { account, key, model: ids[0]! };
    modelCount = Math.max(modelCount, ids.length);
  }
  if (config.hosted.enabled && config.hosted.accounts.length) {
    checks.push(firstModel
      ? { name: 'upstream_models', status: 'pass', message: `${modelCount} models; first: ${firstModel.model}.`, data: { model_count: modelCount, model: firstModel.model } }
      : { name: 'upstream_models', status: 'fail', message: 'No account listed any model.' });
  }
  if (options.skipResponse) checks.push({ name: 'upstream_response', status: 'skip', message: 'Skipped (--skip-response).' });
  else if (!firstModel) checks.push({ name: 'upstream_response', status: 'skip', message: 'No upstream model to ask.' });
  else checks.push(await responseCheck(firstModel.account.baseUrl, firstModel.key, firstModel.model));

  if (!config.cli.enabled) checks.push({ name: 'cli', status: 'skip', message: 'The cli runtime is off.' });
  else {
    const cliStatus = cli.probeCli ? await cli.probeCli().catch((err: unknown) => ({ ready_for_requests: false, notes: [(err as Error).message] })) : cli.parts.cli?.();
    if (!cliStatus) checks.push({ name: 'cli', status: 'skip', message: 'The local command-line client is not part of this build.' });
    else checks.push(cliStatus.ready_for_requests === true
      ? { name: 'cli', status: 'pass', message: 'The local command-line client is ready.', data: cliStatus }
      : { name: 'cli', status: 'warn', message: 'The local command-line client is not ready.', data: cliStatus });
  }

  const count = (s: CheckStatus) => checks.filter((c) => c.status === s).length;
  return {
    ok: count('fail') === 0,
    summary: { passed: count('pass'), warnings: count('warn'), failed: count('fail'), skipped: count('skip') },
    checks,
    next_steps: checks.flatMap((c) => c.next_steps ?? []),
  };
}

async function responseCheck(baseUrl: string, key: string, model: string): Promise<DoctorCheck> {
  const body = { model, stream: true, messages: [{ role: 'user', content: 'Reply with exactly: ok' }], max_tokens: 16 };
  const answer = await callUpstream(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, key, 'POST', body);
  if (!answer.ok) return { name: 'upstream_response', status: 'fail', message: `${model}: ${answer.message}.` };
  const done = answer.text.includes('data: [DONE]');
  const text = answer.text.split('\n').filter((l) => l.startsWith('data: {')).map((l) => {
    try {
      const chunk = JSON.parse(l.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
      return chunk.choices?.[0]?.delta?.content ?? '';
    } catch {
      return '';
    }
  }).join('');
  return done
    ? { name: 'upstream_response', status: 'pass', message: `${model} answered: ${JSON.stringify(text.slice(0, 80))}.` }
    : { name: 'upstream_response', status: 'fail', message: `${model}: the stream ended without [DONE].` };
}

type UpstreamAnswer = { ok: true; body: unknown; text: string } | { ok: false; message: string };

async function callUpstream(url: string, key: string, method: 'GET' | 'POST', body?: unknown): Promise<UpstreamAnswer> {
  try {
    const response = await fetch(url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    });
    const text = await response.text();
    if (!response.ok) return { ok: false, message: `answered ${response.status}: ${text.slice(0, 200)}` };
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      // a stream: the text is read
    }
    return { ok: true, body: parsed, text };
  } catch (err) {
    return { ok: false, message: `could not be reached (${(err as Error).message})` };
  }
}

function modelIdsOf(body: unknown): string[] {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? data.map((m) => (m as { id?: unknown }).id).filter((id): id is string => typeof id === 'string') : [];
}
