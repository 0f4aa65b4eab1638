/**
 * Secrets given to Keel through the environment (`KEEL_ADMIN_TOKEN`, and any other `KEEL_*`
 * variable whose name says token, secret, password, key, credential or database URL) leave the
 * process environment as soon as Keel reads it: they are moved into this module, where the kernel
 * reads them, and the worker threads and child processes the server starts never inherit them.
 * What the environment of the process looked like at its start stays visible in
 * `/proc/<pid>/environ` whatever `process.env` becomes, which is why the file tools refuse `/proc`.
 * The same values (and any the kernel marks, such as the admin token) are scrubbed from the log
 * (`logging/redact.ts`).
 */

const SECRET_NAME = /^KEEL_.*(TOKEN|SECRET|PASSWORD|PASSPHRASE|KEY|CREDENTIAL|DATABASE_URL)/i;

const taken = new Map<string, string>();
/** The values the log scrub replaces: every secret taken from the environment, and those marked. */
const secretSet = new Set<string>();

/** Values shorter than this are not scrubbed by value (they would blank out ordinary text). */
const MIN_SECRET_LENGTH = 8;

/** Whether an environment variable holds a Keel secret. */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** Moves the Keel secrets out of `process.env` (idempotent; a later value set again is taken too). */
export function takeSecretEnv(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of Object.keys(env)) {
    if (!isSecretEnvName(name)) continue;
    const value = env[name];
    if (value !== undefined) {
      taken.set(name, value);
      markSecretValue(value);
    }
    delete env[name];
  }
}

/** Marks a value the kernel holds (the admin token) as secret: the log scrub replaces it wherever it appears. */
export function markSecretValue(value: string): void {
  if (value.length >= MIN_SECRET_LENGTH) secretSet.add(value);
}

/** Every secret value known to this process: those taken from the environment and those marked. */
export function secretValues(): ReadonlySet<string> {
  return secretSet;
}

/** A secret taken from the environment (undefined when it was not set). */
export function secretEnv(name: string): string | undefined {
  return taken.get(name);
}

/** The environment as Keel was started with it: `process.env` plus the secrets taken from it. */
export function environmentWithSecrets(): NodeJS.ProcessEnv {
  return { ...process.env, ...Object.fromEntries(taken) };
}

/** The environment for a worker thread or child process the server starts: no Keel secret. */
export function childEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretEnvName(name)));
}
