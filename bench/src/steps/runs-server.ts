/**
 * Starts kernel-server.ts as a child: the runs stack plus `plugins`, signed in with `token` (both
 * handed over through the environment, which is cleared again at once so no later child inherits them).
 */
import { startServer, type ServerProcess } from '../http/spawn-server.js';
import { STEPS_PLUGINS_ENV, STEPS_TOKEN_ENV } from './settings.js';

const SERVER_SCRIPT = new URL('./kernel-server.js', import.meta.url);

export async function startRunsServer(token: string, plugins: string[], execArgv: string[] = []): Promise<ServerProcess> {
  process.env[STEPS_TOKEN_ENV] = token;
  process.env[STEPS_PLUGINS_ENV] = JSON.stringify(plugins);
  try {
    return await startServer(SERVER_SCRIPT, execArgv);
  } finally {
    delete process.env[STEPS_TOKEN_ENV];
    delete process.env[STEPS_PLUGINS_ENV];
  }
}
