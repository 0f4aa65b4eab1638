/**
 * The log retention policy (reference §1.8, §5.4): `retention_days` (0: no age limit),
 * `max_total_mb`, `max_file_mb`. The saved file `<logs_dir>/.retention.json` beats the config; it
 * is written atomically (temp file in the same folder, fsync, rename) under an in-process lock and
 * an inter-process lock on `<logs_dir>/.retention.lock`, a file that is created once and never
 * deleted (`proper-lockfile` keeps its lock folder beside it while held), so concurrent partial
 * updates from several relay processes are serialised.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { lock } from 'proper-lockfile';

export interface RetentionPolicy {
  retention_days: number;
  max_total_mb: number;
  max_file_mb: number;
}

export type PolicySource = 'saved' | 'config';

/** Each field's inclusive range. */
export const POLICY_RANGES: Readonly<Record<keyof RetentionPolicy, readonly [number, number]>> = {
  retention_days: [0, 36500],
  max_total_mb: [1, 1048576],
  max_file_mb: [1, 10240],
};

const FIELDS = Object.keys(POLICY_RANGES) as Array<keyof RetentionPolicy>;

export const MIB = 1024 * 1024;

/** A policy refused as given (the route answers 422; nothing is saved). */
export class InvalidPolicyError extends Error {
  constructor(message: string, readonly field: string | null) {
    super(message);
    this.name = 'InvalidPolicyError';
  }
}

/** Storage prevents reading or saving the policy (the route answers 503; the previous policy stays). */
export class PolicyStorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyStorageError';
  }
}

/** Checks a partial policy as a client sent it: an object of known fields, each an exact integer in range. */
export function checkPartialPolicy(input: unknown): Partial<RetentionPolicy> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new InvalidPolicyError('The body must be a JSON object with some of retention_days, max_total_mb and max_file_mb.', null);
  }
  const partial: Partial<RetentionPolicy> = {};
  for (const [field, value] of Object.entries(input)) {
    if (!(FIELDS as string[]).includes(field)) {
      throw new InvalidPolicyError(`Unknown field ${JSON.stringify(field)}: the policy has only retention_days, max_total_mb and max_file_mb.`, field);
    }
    const [min, max] = POLICY_RANGES[field as keyof RetentionPolicy];
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      throw new InvalidPolicyError(`${field} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}.`, field);
    }
    if (value < min || value > max) throw new InvalidPolicyError(`${field} must be from ${min} to ${max}, not ${value}.`, field);
    partial[field as keyof RetentionPolicy] = value;
  }
  return partial;
}

/** Checks a whole policy: the per-file limit cannot exceed the total budget. */
export function checkWholePolicy(policy: RetentionPolicy): RetentionPolicy {
  if (policy.max_file_mb > policy.max_total_mb) {
    throw new InvalidPolicyError(`max_file_mb (${policy.max_file_mb}) cannot be above max_total_mb (${policy.max_total_mb}): raise the total budget or lower the file limit.`, 'max_file_mb');
  }
  return policy;
}

export interface LoadedPolicy {
  policy: RetentionPolicy;
  source: PolicySource;
  /** Identifies the saved file's version (`null`: no saved file), to notice another process's change. */
  signature: string | null;
}

export class RetentionPolicyStore {
  readonly policyPath: string;
  readonly lockPath: string;
  /** In-process lock: one save at a time (the file lock only excludes other processes reliably). */
  private saving: Promise<unknown> = Promise.resolve();

  constructor(readonly logsDir: string, private readonly configPolicy: RetentionPolicy) {
    this.policyPath = path.join(logsDir, '.retention.json');
    this.lockPath = path.join(logsDir, '.retention.lock');
  }

  /** The saved file's version, or null when there is none. */
  async signature(): Promise<string | null> {
    try {
      const s = await stat(this.policyPath);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new PolicyStorageError(`The saved log policy ${this.policyPath} cannot be read (${(err as Error).message}).`);
    }
  }

  /** The effective policy: the saved file when there is one, else the config's values. */
  async load(): Promise<LoadedPolicy> {
    const signature = await this.signature();
    if (signature === null) return { policy: { ...this.configPolicy }, source: 'config', signature };
    let text: string;
    try {
      text = await readFile(this.policyPath, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { policy: { ...this.configPolicy }, source: 'config', signature: null };
      throw new PolicyStorageError(`The saved log policy ${this.policyPath} cannot be read (${(err as Error).message}); fix or remove it.`);
    }
    try {
      const saved = checkPartialPolicy(JSON.parse(text));
      return { policy: checkWholePolicy({ ...this.configPolicy, ...saved }), source: 'saved', signature };
    } catch (err) {
      throw new PolicyStorageError(`The saved log policy ${this.policyPath} is not a valid policy (${(err as Error).message}); fix or remove it.`);
    }
  }

  /**
   * Merges `partial` over the effective policy and saves the result, under both locks. Throws
   * `InvalidPolicyError` (nothing written) or `PolicyStorageError` (the saved file unchanged, no
   * temp file left).
   */
  async update(partial: Partial<RetentionPolicy>): Promise<LoadedPolicy> {
    const run = this.saving.then(() => this.updateLocked(partial));
    this.saving = run.catch(() => undefined);
    return run;
  }

  private async updateLocked(partial: Partial<RetentionPolicy>): Promise<LoadedPolicy> {
    const release = await this.lockFile();
    try {
      const current = await this.load();
      const policy = checkWholePolicy({ ...current.policy, ...partial });
      await this.writeAtomically(`${JSON.stringify(policy, null, 2)}\n`);
      return { policy, source: 'saved', signature: await this.signature() };
    } finally {
      await release().catch(() => undefined);
    }
  }

  private async lockFile(): Promise<() => Promise<void>> {
    try {
      await mkdir(this.logsDir, { recursive: true, mode: 0o700 });
      // The lock file itself is never deleted; opening it never follows a symlink.
      const handle = await open(this.lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
      await handle.close();
      return await lock(this.lockPath, {
        realpath: false,
        stale: 10_000,
        retries: { retries: 100, factor: 1.5, minTimeout: 5, maxTimeout: 200 },
        // A lock lost to staleness must not throw from a timer: the save in flight still renames atomically.
        onCompromised: () => undefined,
      });
    } catch (err) {
      throw new PolicyStorageError(`The log policy lock ${this.lockPath} cannot be taken (${(err as Error).message}).`);
    }
  }

  private async writeAtomically(text: string): Promise<void> {
    const temp = path.join(this.logsDir, `.retention.json.${randomBytes(8).toString('hex')}.tmp`);
    let written = false;
    try {
      const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      written = true;
      try {
        await handle.writeFile(text);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.policyPath);
      written = false;
    } catch (err) {
      throw new PolicyStorageError(`The log policy cannot be saved to ${this.policyPath} (${(err as Error).message}); the previous policy is kept.`);
    } finally {
      if (written) await unlink(temp).catch(() => undefined);
    }
  }
}
