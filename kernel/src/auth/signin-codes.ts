/**
 * One-time sign-in codes: a caller holding a bearer token mints a short-lived code (the CLI prints
 * it in a link), and a browser claims it once for a session cookie, so the token itself never has
 * to be typed into or kept by the browser. Codes are stored hashed; claiming removes the code in
 * the same transaction that reads it, so two claims of one code cannot both succeed.
 */
import type { Database, RootDatabase } from 'lmdb';
import { prefixRange, tooManyRequests } from '@keel/plugin-sdk';
import { hashToken } from './account-store.js';
import { newSecret } from './browser-sessions.js';

export interface SigninCodeRecord {
  account: string;
  token_id: string | null;
  /** Hash of the minting token: the session a claim makes lives only as long as that token. */
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface SigninCodeSettings {
  codeTtlMs: number;
  codesPerAccount: number;
}

export class SigninCodes {
  /** hash of the code → record */
  private readonly codes: Database<SigninCodeRecord, string>;
  /** [account, hash] → expires_at, to cap an account's unclaimed codes */
  private readonly index: Database<string, [string, string]>;

  constructor(private readonly root: RootDatabase, private readonly now: () => Date, private readonly settings: SigninCodeSettings) {
    this.codes = root.openDB<SigninCodeRecord, string>({ name: 'core:signin-codes' });
    this.index = root.openDB<string, [string, string]>({ name: 'core:signin-code-index' });
  }

  /** Mints a code for the account of `tokenHash`; 429 when the account already holds its cap of unclaimed codes. */
  async mint(input: { account: string; tokenId: string | null; tokenHash: string }): Promise<{ code: string; record: SigninCodeRecord }> {
    const code = newSecret();
    const now = this.now();
    const record: SigninCodeRecord = {
      account: input.account,
      token_id: input.tokenId,
      token_hash: input.tokenHash,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.settings.codeTtlMs).toISOString(),
    };
    const minted = await this.root.childTransaction(() => {
      const entries = [...this.index.getRange(prefixRange([input.account]))];
      const expired = entries.filter(({ value }) => Date.parse(value) <= now.getTime());
      for (const { key } of expired) this.removeSync(key);
      if (entries.length - expired.length >= this.settings.codesPerAccount) return false;
      const hash = hashToken(code);
      this.codes.put(hash, record);
      this.index.put([input.account, hash], record.expires_at);
      return true;
    });
    if (!minted) {
      throw tooManyRequests(`'${input.account}' already has ${this.settings.codesPerAccount} unclaimed sign-in codes (server.signin.codesPerAccount); claim one or wait until they expire.`, {
        code: 'too_many_signin_codes',
        headers: { 'retry-after': String(Math.ceil(this.settings.codeTtlMs / 1000)) },
      });
    }
    return { code, record };
  }

  /** Takes a code once: its record if it existed and had not expired, else null. Either way it is gone afterwards. */
  async take(code: string): Promise<SigninCodeRecord | null> {
    const hash = hashToken(code);
    const record = await this.root.childTransaction(() => {
      const found = this.codes.get(hash);
      if (found) this.removeSync([found.account, hash]);
      return found ?? null;
    });
    if (!record || Date.parse(record.expires_at) <= this.now().getTime()) return null;
    return record;
  }

  /** Drops every unclaimed code of the account (signed out everywhere): a code is a session not yet claimed. */
  async endAll(account: string): Promise<number> {
    return this.root.childTransaction(() => {
      const keys = [...this.index.getKeys(prefixRange([account]))];
      for (const key of keys) this.removeSync(key);
      return keys.length;
    });
  }

  /** Removes every expired code (at start). */
  async sweep(): Promise<void> {
    const now = this.now().getTime();
    const expired = [...this.index.getRange()].filter(({ value }) => Date.parse(value) <= now);
    if (!expired.length) return;
    await this.root.childTransaction(() => {
      for (const { key } of expired) this.removeSync(key);
    });
  }

  private removeSync(key: [string, string]): void {
    this.codes.remove(key[1]);
    this.index.remove(key);
  }
}
