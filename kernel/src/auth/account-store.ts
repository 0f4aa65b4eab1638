/**
 * Accounts and their bearer tokens, in LMDB. Tokens are stored as SHA-256 hashes only: the
 * plain token is returned once, at creation, and can never be read back.
 */
import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Database, RootDatabase } from 'lmdb';
import { prefixRange, conflict, notFound, type Principal } from '@keel/plugin-sdk';

export interface AccountRecord {
  account: string;
  tenant: string;
  roles: string[];
  display_name: string | null;
  created_at: string;
  disabled: boolean;
}

export interface TokenRecord {
  token_id: string;
  account: string;
  label: string | null;
  created_at: string;
}

export interface IssuedToken extends TokenRecord {
  /** The plain token: shown once, never stored. */
  token: string;
}

export const ADMIN_ROLE = 'admin';

export function hashToken(token: string): string {
  // One-shot (the same digest as createHash's): every authenticated request hashes its token.
  return hash('sha256', token, 'hex');
}

export function newTokenValue(): string {
  return `keel_${randomBytes(32).toString('base64url')}`;
}

export class AccountStore {
  private readonly accounts: Database<AccountRecord, string>;
  /** hash → token record */
  private readonly tokens: Database<TokenRecord, string>;
  /** [account, token_id] → hash, to list and revoke an account's tokens */
  private readonly tokenIndex: Database<string, [string, string]>;

  constructor(private readonly root: RootDatabase, private readonly now: () => Date) {
    this.accounts = root.openDB<AccountRecord, string>({ name: 'core:accounts' });
    this.tokens = root.openDB<TokenRecord, string>({ name: 'core:tokens' });
    this.tokenIndex = root.openDB<string, [string, string]>({ name: 'core:token-index' });
  }

  get(account: string): AccountRecord | undefined {
    return this.accounts.get(account);
  }

  list(): AccountRecord[] {
    return [...this.accounts.getRange().map(({ value }) => value)];
  }

  /** Creates an account and its first token in one durable transaction. */
  async create(input: { account: string; tenant: string; roles: string[]; display_name?: string | null }, label: string | null = null): Promise<{ record: AccountRecord; token: IssuedToken }> {
    const record: AccountRecord = {
      account: input.account,
      tenant: input.tenant,
      roles: [...new Set(input.roles)],
      display_name: input.display_name ?? null,
      created_at: this.now().toISOString(),
      disabled: false,
    };
    const token = this.makeToken(record.account, label);
    // Child transactions: a callback that throws keeps none of its writes (see storage/lmdb-env.ts).
    const created = await this.root.childTransaction(() => {
      if (this.accounts.get(record.account)) return false;
      this.accounts.put(record.account, record);
      this.writeToken(token);
      return true;
    });
    if (!created) throw conflict(`Account '${input.account}' already exists.`, { code: 'account_exists', field: 'account' });
    return { record, token };
  }

  async ensure(input: { account: string; tenant: string; roles: string[] }): Promise<AccountRecord> {
    const existing = this.get(input.account);
    if (existing) return existing;
    const record: AccountRecord = { ...input, display_name: null, created_at: this.now().toISOString(), disabled: false };
    await this.accounts.ifNoExists(record.account, () => this.accounts.put(record.account, record));
    return this.get(input.account) ?? record;
  }

  async issue(account: string, label: string | null = null): Promise<IssuedToken> {
    const token = this.makeToken(account, label);
    const ok = await this.root.childTransaction(() => {
      const record = this.accounts.get(account);
      if (!record || record.disabled) return false;
      this.writeToken(token);
      return true;
    });
    if (!ok) throw notFound(`Account '${account}' does not exist.`, { code: 'account_not_found' });
    return token;
  }

  /** Registers a token value chosen elsewhere (the bootstrap file, KEEL_ADMIN_TOKEN) under a fixed id. */
  async register(account: string, tokenValue: string, tokenId: string, label: string): Promise<void> {
    const hash = hashToken(tokenValue);
    await this.root.childTransaction(() => {
      const previous = this.tokenIndex.get([account, tokenId]);
      if (previous === hash) return;
      if (previous) this.tokens.remove(previous);
      this.tokens.put(hash, { token_id: tokenId, account, label, created_at: this.now().toISOString() });
      this.tokenIndex.put([account, tokenId], hash);
    });
  }

  tokensOf(account: string): TokenRecord[] {
    const out: TokenRecord[] = [];
    for (const { value: hash } of this.tokenIndex.getRange(prefixRange([account]))) {
      const record = this.tokens.get(hash);
      if (record) out.push(record);
    }
    return out;
  }

  async revoke(account: string, tokenId: string): Promise<boolean> {
    return this.root.childTransaction(() => {
      const hash = this.tokenIndex.get([account, tokenId]);
      if (!hash) return false;
      this.tokens.remove(hash);
      this.tokenIndex.remove([account, tokenId]);
      return true;
    });
  }

  /**
   * Suspends (`active` false) or restores an account without touching its tokens: a suspended
   * account's tokens and sessions are refused until it is active again. False for an unknown account.
   */
  async setActive(account: string, active: boolean): Promise<boolean> {
    return this.root.childTransaction(() => {
      const record = this.accounts.get(account);
      if (!record) return false;
      if (record.disabled === !active) return true;
      this.accounts.put(account, { ...record, disabled: !active });
      return true;
    });
  }

  /** Disables an account and revokes all its tokens; the id stays taken. */
  async disable(account: string): Promise<boolean> {
    return this.root.childTransaction(() => {
      const record = this.accounts.get(account);
      if (!record) return false;
      this.accounts.put(account, { ...record, disabled: true });
      for (const { key, value: hash } of this.tokenIndex.getRange(prefixRange([account]))) {
        this.tokens.remove(hash);
        this.tokenIndex.remove(key);
      }
      return true;
    });
  }

  principalFor(tokenValue: string): Principal | null {
    return this.principalForHash(hashToken(tokenValue));
  }

  /** The principal of the token stored under `hash` (a browser session keeps it): null once revoked or its account disabled. */
  principalForHash(hash: string): Principal | null {
    const token = this.tokens.get(hash);
    if (!token) return null;
    const account = this.accounts.get(token.account);
    if (!account || account.disabled) return null;
    return { account: account.account, tenant: account.tenant, roles: account.roles, tokenId: token.token_id };
  }

  private makeToken(account: string, label: string | null): IssuedToken {
    return { token_id: randomUUID(), account, label, created_at: this.now().toISOString(), token: newTokenValue() };
  }

  private writeToken(token: IssuedToken): void {
    const hash = hashToken(token.token);
    const { token: _plain, ...record } = token;
    this.tokens.put(hash, record);
    this.tokenIndex.put([token.account, token.token_id], hash);
  }
}
