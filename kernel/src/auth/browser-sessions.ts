/**
 * Browser sessions: the server side of the sign-in cookie. The cookie holds a random session id;
 * LMDB holds only its SHA-256 hash, with the account, the hash of the token that signed in (the
 * session ends with that token) and an expiry. The CSRF token is derived from the session id, so
 * only a holder of the cookie's value (the server, given the cookie) can compute it. Nothing here trusts the
 * cookie: a session counts only while it is stored, unexpired, and its token and account still are.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import { hashToken } from './account-store.js';
import { prefixRange } from '@keel/plugin-sdk';

export interface BrowserSessionRecord {
  account: string;
  /** Id of the token that signed in (for revoking by token id). */
  token_id: string | null;
  /** Hash of that token, as the account store keeps it: the session is valid only while it is. */
  token_hash: string;
  via: 'login' | 'claim';
  created_at: string;
  expires_at: string;
}

export interface NewBrowserSession {
  /** The cookie value: shown once, stored only hashed. */
  id: string;
  /** The value unsafe requests send in the CSRF header (also shown by `GET /session`). */
  csrf: string;
  record: BrowserSessionRecord;
}

export interface BrowserSessionSettings {
  sessionTtlMs: number;
  sessionsPerAccount: number;
}

/** 256 bits, URL-safe: a cookie value and header value that need no escaping. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The CSRF token of a session: a one-way function of its id, so a page can hold it without holding the cookie's value. */
export function csrfTokenFor(sessionId: string): string {
  return createHash('sha256').update(`keel-csrf\u0000${sessionId}`, 'utf8').digest('base64url');
}

/** Compares two secrets in constant time (of their hashes, so lengths do not leak either). */
export function secretsMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(hashToken(presented), 'hex'), Buffer.from(hashToken(expected), 'hex'));
}

export class BrowserSessions {
  /** hash of the session id → record */
  private readonly sessions: Database<BrowserSessionRecord, string>;
  /** [account, hash] → created_at, to list, cap and end an account's sessions */
  private readonly index: Database<string, [string, string]>;

  constructor(private readonly root: RootDatabase, private readonly now: () => Date, private readonly settings: BrowserSessionSettings) {
    this.sessions = root.openDB<BrowserSessionRecord, string>({ name: 'core:browser-sessions' });
    this.index = root.openDB<string, [string, string]>({ name: 'core:browser-session-index' });
  }

  /** Stores a new session; beyond the per-account cap the oldest sessions of the account end. */
  async create(input: { account: string; tokenId: string | null; tokenHash: string; via: BrowserSessionRecord['via'] }): Promise<NewBrowserSession> {
    const id = newSecret();
    const csrf = csrfTokenFor(id);
    const now = this.now();
    const record: BrowserSessionRecord = {
      account: input.account,
      token_id: input.tokenId,
      token_hash: input.tokenHash,
      via: input.via,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.settings.sessionTtlMs).toISOString(),
    };
    const hash = hashToken(id);
    await this.root.childTransaction(() => {
      const { live, dead } = this.partition(input.account, now);
      for (const old of dead) this.removeSync(input.account, old);
      const excess = live.length - (this.settings.sessionsPerAccount - 1);
      for (const old of live.slice(0, Math.max(0, excess))) this.removeSync(input.account, old.hash);
      this.sessions.put(hash, record);
      this.index.put([input.account, hash], record.created_at);
    });
    return { id, csrf, record };
  }

  /** The stored, unexpired session a cookie value names, or null (an expired one is removed). */
  find(id: string): BrowserSessionRecord | null {
    const hash = hashToken(id);
    const record = this.sessions.get(hash);
    if (!record) return null;
    if (Date.parse(record.expires_at) <= this.now().getTime()) {
      this.remove(record.account, hash).catch(() => undefined);
      return null;
    }
    return record;
  }

  /** Ends the session a cookie value names; false when there was none. */
  async end(id: string): Promise<boolean> {
    const hash = hashToken(id);
    const record = this.sessions.get(hash);
    if (!record) return false;
    await this.remove(record.account, hash);
    return true;
  }

  /** Ends every session of an account (sign out everywhere, account suspended). */
  endAll(account: string): Promise<number> {
    return this.endWhere(account, () => true);
  }

  /** Ends the sessions a token signed in (the token was revoked). */
  endForToken(account: string, tokenId: string): Promise<number> {
    return this.endWhere(account, (r) => r.token_id === tokenId);
  }

  /** The account's unexpired sessions, oldest first. */
  listOf(account: string): BrowserSessionRecord[] {
    return this.partition(account, this.now()).live.map((s) => s.record);
  }

  /** Removes every expired session (at start; later ones go when next read or capped). */
  async sweep(): Promise<number> {
    const now = this.now().getTime();
    const expired = [...this.sessions.getRange()].filter(({ value }) => Date.parse(value.expires_at) <= now);
    if (!expired.length) return 0;
    await this.root.childTransaction(() => {
      for (const { key, value } of expired) this.removeSync(value.account, key);
    });
    return expired.length;
  }

  /** The account's sessions: unexpired ones oldest first, and the hashes of index entries that are expired or gone. */
  private partition(account: string, now: Date): { live: Array<{ hash: string; record: BrowserSessionRecord }>; dead: string[] } {
    const live: Array<{ hash: string; record: BrowserSessionRecord }> = [];
    const dead: string[] = [];
    for (const { key } of this.index.getRange(prefixRange([account]))) {
      const record = this.sessions.get(key[1]);
      if (record && Date.parse(record.expires_at) > now.getTime()) live.push({ hash: key[1], record });
      else dead.push(key[1]);
    }
    live.sort((a, b) => a.record.created_at.localeCompare(b.record.created_at));
    return { live, dead };
  }

  private async endWhere(account: string, matches: (record: BrowserSessionRecord) => boolean): Promise<number> {
    return this.root.childTransaction(() => {
      const { live, dead } = this.partition(account, this.now());
      const ending = live.filter((s) => matches(s.record));
      for (const hash of [...dead, ...ending.map((s) => s.hash)]) this.removeSync(account, hash);
      return ending.length;
    });
  }

  private remove(account: string, hash: string): Promise<void> {
    return this.root.childTransaction(() => this.removeSync(account, hash));
  }

  private removeSync(account: string, hash: string): void {
    this.sessions.remove(hash);
    this.index.remove([account, hash]);
  }
}
