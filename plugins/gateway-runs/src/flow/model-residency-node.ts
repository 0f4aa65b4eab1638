/**
 * `model_residency` (reference runtime-nodes §10): list the loaded local models, or load / unload
 * one, through the inference plugin. Failures are soft (the run goes on with `success: false`)
 * unless the node says `required`; a load that does not show the model loaded is downgraded; an
 * unload of a model that is not loaded succeeds with a warning.
 */
import type { InferenceService } from '@keel/plugin-inference';
import { coerceBool } from './coerce.js';
import { effectNode, type EffectNodeType } from './node-types.js';

type Operation = 'list_loaded' | 'load' | 'unload';

const ALIASES: Record<string, Operation> = {
  list_loaded: 'list_loaded', list: 'list_loaded', loaded: 'list_loaded', list_models: 'list_loaded', list_loaded_models: 'list_loaded',
  load: 'load', warm: 'load', preload: 'load',
  unload: 'unload', release: 'unload', evict: 'unload',
};

const present = (v: unknown) => v !== null && v !== undefined && v !== '';

export interface ResidencyPayload extends Record<string, unknown> {
  operation: string;
  task?: string;
  provider?: string;
  model?: string;
  pin: boolean;
  required: boolean;
}

export function modelResidencyNode(inference: InferenceService): EffectNodeType {
  return effectNode<ResidencyPayload, Record<string, unknown>>({
    payload(inputs, node) {
      const config = node.data.effectConfig ?? {};
      const pick = (key: string) => (present(inputs[key]) ? inputs[key] : config[key]);
      const payload: ResidencyPayload = { operation: String(pick('operation') ?? 'list_loaded'), pin: pick('pin') === undefined ? true : coerceBool(pick('pin')), required: coerceBool(pick('required')) };
      for (const key of ['task', 'provider', 'model'] as const) if (present(pick(key))) payload[key] = String(pick(key));
      return payload;
    },
    async perform(p, context) {
      const operation = ALIASES[p.operation.trim().toLowerCase()];
      const warnings: string[] = [];
      const soft = (error: string) => {
        // A required residency fails the effect; otherwise the run goes on and the node says why.
        if (p.required) throw new Error(`model_residency ${p.operation} failed: ${error}`);
        return { ok: false, success: false, operation: operation ?? p.operation, error, warnings, models: [], affected_models: [], status_hint: 'warning', degraded: true };
      };
      if (!operation) return soft(`unknown operation '${p.operation}' (use list_loaded, load or unload)`);
      if (operation === 'load' && !p.task) return soft('model_residency load requires task');
      const model = p.model ? (p.provider && !p.model.includes('/') ? `${p.provider}/${p.model}` : p.model) : undefined;
      try {
        if (operation === 'list_loaded') {
          const listed = await inference.residency(context.account, 'list');
          return { ok: true, success: true, operation, models: listed.loaded, affected_models: [], warnings };
        }
        const done = await inference.residency(context.account, operation, model);
        if (operation === 'load' && !done.loaded.includes(done.model!)) {
          warnings.push('model_residency load did not verify loaded provider residency');
          return { ...soft('the model is not shown loaded after the load'), warnings };
        }
        if (operation === 'unload' && !done.changed) warnings.push(`${done.model} was not loaded; nothing to unload`);
        return { ok: true, success: true, operation, models: done.loaded, affected_models: done.changed ? [done.model] : [], warnings, loaded_new: operation === 'load' && done.changed, unloaded: operation === 'unload' && done.changed };
      } catch (err) {
        return soft((err as Error).message);
      }
    },
    outputs(r) {
      return { success: r.success === true, affected_models: r.affected_models ?? [], models: r.models ?? [], error: r.error ?? null, warnings: r.warnings ?? [], result: r, loaded_new: r.loaded_new ?? false, unloaded: r.unloaded ?? false };
    },
  });
}
