/**
 * The relay's model catalog (reference §1.3, §1.4): the hosted accounts' catalogs, each cached for
 * `hosted.modelsCacheTtlSeconds` with single-flight misses, merged in upstream order with
 * `account_availability`; the configured `hosted.extraModels` only when a catalog was read; the
 * local command-line client's models. It lists `GET /v1/models` and routes a model id to its
 * runtime, refusing (422, with near ids) an id no runtime serves.
 */
import { distance } from 'fastest-levenshtein';
import type { Clock } from '@keel/plugin-sdk';
import { RelayFailure, type ModelCatalog, type ModelRoute, type TrafficSink, type UpstreamAccount } from '../contracts.js';
import { CLI_PREFIX, type CliModel, type CliModels, type HostedAccounts } from './catalog-sources.js';
import { cliRecord, hostedRecord, type ModelRecord } from './model-records.js';
import { fetchUpstreamCatalog, type CatalogEntry } from './upstream-catalog.js';

export interface CatalogSettings {
  hostedEnabled: boolean;
  /** 0: every lookup reads the upstream. */
  ttlSeconds: number;
  extraModels: readonly string[];
  /** How long one account's `GET /models` may take. */
  timeoutMs: number;
}

/** The hosted side merged from every account that answered. */
type HostedCatalog =
  | { ok: true; ids: string[]; entries: Map<string, CatalogEntry | null>; supported: Map<string, number>; total: number; servedBy: Map<string, string[]> }
  | { ok: false; failure: RelayFailure };

interface CachedCatalog {
  entries: CatalogEntry[];
  fetchedAtMs: number;
}

const MAX_SUGGESTIONS = 5;

export class RelayModelCatalog implements ModelCatalog {
  private readonly cache = new Map<string, CachedCatalog>();
  private readonly inflight = new Map<string, Promise<CatalogEntry[]>>();
  /** The last merge and the account catalogs it was made of: routing a request on cached catalogs does not merge again. */
  private lastMerge: { accounts: readonly UpstreamAccount[]; catalogs: Array<CatalogEntry[] | null>; result: HostedCatalog } | null = null;

  constructor(
    private readonly settings: CatalogSettings,
    private readonly hosted: HostedAccounts,
    private readonly cli: CliModels,
    private readonly traffic: TrafficSink,
    private readonly clock: Clock,
  ) {}

  /**
   * The records of `GET /v1/models`: hosted (catalog order), extras, then the client's. A hosted
   * failure is swallowed when the client has models, and raised when nothing is left to list.
   */
  async list(refresh: boolean, requestId: string): Promise<ModelRecord[]> {
    const [hosted, cli] = await Promise.all([this.settings.hostedEnabled ? this.hostedCatalog(refresh, requestId) : null, this.cliModels(refresh)]);
    const cliRecords = cli.map(cliRecord);
    if (hosted && !hosted.ok) {
      if (cliRecords.length > 0) return cliRecords;
      throw hosted.failure;
    }
    const hostedRecords = hosted ? hosted.ids.map((id) => hostedRecord(id, hosted.entries.get(id) ?? null, { supported: hosted.supported.get(id) ?? 0, total: hosted.total })) : [];
    return [...hostedRecords, ...cliRecords];
  }

  /** Where `model` goes (reference §1.3), with a `provider_resolution` record. */
  async route(model: string, requestId: string): Promise<ModelRoute> {
    const prefixed = CLI_PREFIX.test(model);
    // Client ids are always prefixed: a hosted call never waits on the client's model discovery.
    if (this.cli.enabled && prefixed) {
      const name = prefixed ? model.slice(4) : null;
      const found = (await this.cliModels(false)).find((m) => m.id === model || (name !== null && m.upstreamModel === name));
      if (found) return this.resolved({ provider: 'cli', upstreamModel: found.upstreamModel }, model, requestId);
    }
    if (prefixed) {
      throw refusal(this.cli.enabled
        ? `Unknown local client model \`${model}\`. Configure it under cli.models first (GET /v1/models lists the available ids).`
        : 'The local command-line client runtime is disabled for this relay (setting cli.enabled).', 'unsupported_for_provider');
    }
    if (!this.settings.hostedEnabled) throw refusal(`Unknown model \`${model}\` and the hosted runtime is disabled (setting hosted.enabled).`, 'model_not_found');
    const hosted = await this.hostedCatalog(false, requestId);
    // Without a readable catalog the upstream stays the authority: the call itself tells.
    if (!hosted.ok || hosted.entries.has(model)) return this.resolved({ provider: 'hosted', upstreamModel: model }, model, requestId);
    const suggestions = nearIds(model, [...hosted.ids, ...(this.cli.enabled ? (await this.cliModels(false)).map((m) => m.id) : [])]);
    const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `\`${s}\``).join(', ')}?` : '';
    throw refusal(`The model \`${model}\` is in neither the hosted catalog nor hosted.extraModels.${hint} GET /v1/models lists the available ids.`, 'model_not_found', { suggestions });
  }

  /**
   * `providers.hosted.models_cache` of the status (reference §1.7 MODELS_CACHE), from the cached
   * account catalogs only (never a read): the oldest one decides the age and whether it expired.
   */
  cacheStatus(): Record<string, unknown> {
    const ttlSeconds = this.settings.ttlSeconds;
    const cached = this.hosted.accounts().map((a) => this.cache.get(a.slug)).filter((c): c is CachedCatalog => c !== undefined);
    const oldest = cached.length ? Math.min(...cached.map((c) => c.fetchedAtMs)) : null;
    const age = oldest === null ? null : Math.max(0, (this.clock.nowMs() - oldest) / 1000);
    const state = !this.settings.hostedEnabled ? 'provider_disabled' : ttlSeconds === 0 ? 'disabled' : age === null ? 'empty' : age < ttlSeconds ? 'fresh' : 'expired';
    return {
      configured: this.hosted.accounts().length > 0,
      enabled: this.settings.hostedEnabled && ttlSeconds > 0,
      ttl_seconds: ttlSeconds,
      state,
      age_seconds: age === null ? null : round(age),
      expires_in_seconds: state === 'fresh' ? round(ttlSeconds - age!) : null,
      cached_model_count: new Set(cached.flatMap((c) => c.entries.map((e) => e.id))).size,
    };
  }

  /** The slugs of the accounts whose catalog lists `model` (cached catalogs; null when none could be read). */
  async accountsServing(model: string, requestId: string): Promise<string[] | null> {
    const hosted = await this.hostedCatalog(false, requestId);
    return hosted.ok ? hosted.servedBy.get(model) ?? [] : null;
  }

  private resolved(route: ModelRoute, model: string, requestId: string): ModelRoute {
    this.traffic.write({ phase: 'provider_resolution', request_id: requestId, provider: route.provider, model });
    return route;
  }

  private async cliModels(refresh: boolean): Promise<CliModel[]> {
    if (!this.cli.enabled) return [];
    try {
      return await this.cli.models({ refresh });
    } catch {
      // The client lane reports its own failures (status, doctor); the list goes on without it.
      return [];
    }
  }

  private async hostedCatalog(refresh: boolean, requestId: string): Promise<HostedCatalog> {
    const accounts = this.hosted.accounts();
    if (accounts.length === 0) {
      return { ok: false, failure: new RelayFailure(503, { message: 'No hosted account is configured: add one under hosted.accounts, or turn the hosted runtime off (hosted.enabled false).', type: 'server_error', code: 'no_hosted_accounts', param: null }) };
    }
    const fresh = refresh ? null : this.freshMerge(accounts, requestId);
    if (fresh) return fresh;
    const results = await Promise.allSettled(accounts.map((account) => this.accountCatalog(account, refresh, requestId)));
    const catalogs = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    const last = this.lastMerge;
    if (last && last.accounts === accounts && catalogs.every((c, i) => c !== null && c === last.catalogs[i])) return last.result;
    const merged = this.merge(accounts, results);
    this.lastMerge = merged.ok ? { accounts, catalogs, result: merged } : null;
    return merged;
  }

  /**
   * The last merge when every account's cached catalog it was made of is still fresh (the routing
   * path of nearly every call): the `hit` records are written and nothing is awaited or merged.
   * Null when an account, a catalog or the TTL changed: the full lookup runs.
   */
  private freshMerge(accounts: readonly UpstreamAccount[], requestId: string): HostedCatalog | null {
    const last = this.lastMerge;
    const ttlSeconds = this.settings.ttlSeconds;
    if (!last || last.accounts !== accounts || ttlSeconds === 0) return null;
    const now = this.clock.nowMs();
    const ages: number[] = [];
    for (let i = 0; i < accounts.length; i++) {
      const cached = this.cache.get(accounts[i]!.slug);
      if (!cached || cached.entries !== last.catalogs[i]) return null;
      const age = (now - cached.fetchedAtMs) / 1000;
      if (!(age < ttlSeconds)) return null;
      ages.push(age);
    }
    accounts.forEach((account, i) => this.cacheRecord(account, requestId, 'hit', ages[i]!, last.catalogs[i]!.length));
    return last.result;
  }

  private cacheRecord(account: UpstreamAccount, requestId: string, cache: string, age: number | null, count: number): void {
    const ttlSeconds = this.settings.ttlSeconds;
    this.traffic.write({
      phase: 'provider_models_cache', request_id: requestId, provider: 'hosted', account: account.slug, cache, ttl_seconds: ttlSeconds,
      age_seconds: age === null ? null : round(age), expires_in_seconds: cache === 'hit' ? round(ttlSeconds - age!) : null, cached_model_count: count,
    });
  }

  private merge(accounts: readonly UpstreamAccount[], results: Array<PromiseSettledResult<CatalogEntry[]>>): HostedCatalog {
    const ids: string[] = [];
    const entries = new Map<string, CatalogEntry | null>();
    const supported = new Map<string, number>();
    const servedBy = new Map<string, string[]>();
    let read = 0;
    let failure: unknown = null;
    results.forEach((result, index) => {
      if (result.status === 'rejected') {
        failure ??= result.reason;
        return;
      }
      read++;
      for (const entry of result.value) {
        if (!entries.has(entry.id)) {
          ids.push(entry.id);
          entries.set(entry.id, entry);
        }
        supported.set(entry.id, (supported.get(entry.id) ?? 0) + 1);
        servedBy.set(entry.id, [...(servedBy.get(entry.id) ?? []), accounts[index]!.slug]);
      }
    });
    if (read === 0) {
      return { ok: false, failure: failure instanceof RelayFailure ? failure : new RelayFailure(502, { message: `The hosted catalog could not be read (${(failure as Error | null)?.message ?? 'unknown error'}).`, type: 'upstream_error', code: 'upstream_unreachable', param: null }) };
    }
    // Extras extend a catalog that was read, never mask a failure (reference §8 item 21).
    const readBy = accounts.filter((_, index) => results[index]!.status === 'fulfilled').map((a) => a.slug);
    for (const id of this.settings.extraModels) {
      if (entries.has(id)) continue;
      ids.push(id);
      entries.set(id, null);
      supported.set(id, read);
      servedBy.set(id, readBy);
    }
    return { ok: true, ids, entries, supported, total: accounts.length, servedBy };
  }

  /** One account's catalog from the cache, or read (one read at a time per account), with a `provider_models_cache` record. */
  private accountCatalog(account: UpstreamAccount, refresh: boolean, requestId: string): Promise<CatalogEntry[]> {
    const ttlSeconds = this.settings.ttlSeconds;
    const now = this.clock.nowMs();
    const cached = this.cache.get(account.slug);
    const age = cached ? (now - cached.fetchedAtMs) / 1000 : null;
    const fresh = cached !== undefined && ttlSeconds > 0 && !refresh && age! < ttlSeconds;
    const cache = ttlSeconds === 0 ? 'disabled' : fresh ? 'hit' : refresh ? 'refresh' : 'miss';
    this.cacheRecord(account, requestId, cache, age, cached?.entries.length ?? 0);
    if (fresh) return Promise.resolve(cached.entries);
    let reading = this.inflight.get(account.slug);
    if (!reading) {
      reading = fetchUpstreamCatalog(this.hosted.endpointOf(account), this.settings.timeoutMs)
        .then((entries) => {
          if (ttlSeconds > 0) this.cache.set(account.slug, { entries, fetchedAtMs: this.clock.nowMs() });
          return entries;
        })
        .finally(() => this.inflight.delete(account.slug));
      this.inflight.set(account.slug, reading);
    }
    return reading;
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

function refusal(message: string, code: string, extra: Record<string, unknown> = {}): RelayFailure {
  return new RelayFailure(422, { message, type: 'invalid_request_error', code, param: 'model', ...extra });
}

/** Ids close to `model`: a small edit distance (case-insensitive) or one containing the other, nearest first. */
export function nearIds(model: string, ids: readonly string[]): string[] {
  const wanted = model.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return [...new Set(ids)]
    .map((id) => ({ id, score: distance(wanted, id.toLowerCase()), contains: id.toLowerCase().includes(wanted) || wanted.includes(id.toLowerCase()) }))
    .filter((c) => c.score <= limit || c.contains)
    .sort((a, b) => a.score - b.score || a.id.localeCompare(b.id))
    .slice(0, MAX_SUGGESTIONS)
    .map((c) => c.id);
}
