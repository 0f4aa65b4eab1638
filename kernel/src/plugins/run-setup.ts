/** Runs one plugin's setup under a deadline; a plugin that overruns is aborted and named. */
import type { AnyPlugin, PluginInstance, SetupContext, DepsMap } from '@keel/plugin-sdk';
import { BootError } from '../boot-error.js';

export async function runSetup(
  plugin: AnyPlugin,
  ctx: Omit<SetupContext<unknown, DepsMap>, 'signal'>,
  parentSignal: AbortSignal,
  timeoutMs: number,
): Promise<{ instance: PluginInstance<unknown>; controller: AbortController }> {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parentSignal.reason);
  parentSignal.addEventListener('abort', onParentAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Reject first so the race settles on the timeout, not on the plugin's reaction to the abort.
      reject(new BootError(`plugin '${plugin.id}' did not finish setup within ${timeoutMs} ms (server.setupTimeoutMs).`));
      controller.abort(new Error('setup timed out'));
    }, timeoutMs);
  });
  try {
    const instance = await Promise.race([Promise.resolve(plugin.setup({ ...ctx, signal: controller.signal })), deadline]);
    return { instance: instance ?? {}, controller };
  } catch (err) {
    if (err instanceof BootError) throw err;
    throw new BootError(`plugin '${plugin.id}' failed in setup: ${(err as Error).message ?? String(err)}`, { cause: err });
  } finally {
    clearTimeout(timer);
    parentSignal.removeEventListener('abort', onParentAbort);
  }
}
