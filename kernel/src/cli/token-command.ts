/** `keel token create`: print a new bearer token, straight from the data directory's LMDB. */
import { AccountStore, ADMIN_ROLE } from '../auth/account-store.js';
import { openLmdbEnv } from '../storage/lmdb-env.js';
import { configFlags, configFromFlags, parseArgs, usage } from './parse-flags.js';
import { UsageError } from './usage-error.js';

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export async function tokenCommand(args: string[]): Promise<number> {
  const { values, positionals } = usage(() => parseArgs({ args, strict: true, allowPositionals: true, allowNegative: true, options: {
    ...configFlags,
    account: { type: 'string' },
    tenant: { type: 'string' },
    label: { type: 'string' },
    admin: { type: 'boolean' },
  } }));
  if (positionals[0] !== 'create' || positionals.length > 1) throw new UsageError(`usage: keel token create --account A [--admin] [--tenant T] [--label L]`);
  const account = values.account;
  if (!account) throw new UsageError('--account is required.');
  if (!NAME.test(account)) throw new UsageError(`--account '${account}' must be lowercase letters, digits, '.', '_' or '-' (up to 64).`);
  const tenant = values.tenant ?? 'default';
  if (!NAME.test(tenant)) throw new UsageError(`--tenant '${tenant}' must be lowercase letters, digits, '.', '_' or '-' (up to 64).`);

  const { config } = configFromFlags(values);
  const db = openLmdbEnv(config.server.dataDir);
  try {
    const store = new AccountStore(db, () => new Date());
    const existing = store.get(account);
    if (existing?.disabled) throw new UsageError(`account '${account}' is disabled.`);
    let token: string;
    if (!existing) {
      const created = await store.create({ account, tenant, roles: values.admin ? [ADMIN_ROLE] : [] }, values.label ?? 'cli');
      token = created.token.token;
    } else {
      if (values.admin && !existing.roles.includes(ADMIN_ROLE)) throw new UsageError(`account '${account}' exists without the admin role; --admin only applies to new accounts.`);
      token = (await store.issue(account, values.label ?? 'cli')).token;
    }
    process.stdout.write(`${token}\n`);
    return 0;
  } finally {
    await db.close();
  }
}
