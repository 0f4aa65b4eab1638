/**
 * Drives gateway-runs' flow interpreter directly, without HTTP or storage, for unit tests: compiles
 * a VisualFlow, steps it as the runtime does (a branch that ends returns to the innermost loop or
 * sequence; no next node and no frame completes the run) and answers each requested effect with a
 * fake. The registry holds what the plugin registers at setup: its reserved types and pure helpers.
 */
import { builtinNodeTypes } from '../../../plugins/gateway-runs/dist/flow/helpers/index.js';
import { compileFlow, type CompiledFlow } from '../../../plugins/gateway-runs/dist/flow/compile-flow.js';
import { INTERPRETER_TYPES, step, type EffectRequest, type StepOutcome } from '../../../plugins/gateway-runs/dist/flow/interpreter.js';
import { temp, type RunVars } from '../../../plugins/gateway-runs/dist/flow/node-io.js';
import { NodeTypes, type NodeTypeDefinition } from '../../../plugins/gateway-runs/dist/flow/node-types.js';
import type { VisualFlow } from '../../../plugins/gateway-runs/dist/flow/visualflow.js';
import { terminalOutput } from '../../../plugins/gateway-runs/dist/runtime/run-outcomes.js';

export { compileFlow, step, temp, NodeTypes };
export type { CompiledFlow, EffectRequest, RunVars, StepOutcome, VisualFlow };

/** The registry as gateway-runs sets it up, plus `extra` types owned by a plugin named 'other'. */
export function nodeTypes(extra: Record<string, NodeTypeDefinition> = {}): NodeTypes {
  const types = new NodeTypes();
  types.reserve('gateway-runs', INTERPRETER_TYPES);
  types.register('gateway-runs', builtinNodeTypes());
  if (Object.keys(extra).length) types.register('other', extra);
  return types;
}

export interface Walk {
  /** The run's output when it completed. */
  output: Record<string, unknown>;
  /** The exec nodes stepped, in order (an effect node appears twice: its request and its result). */
  visited: string[];
  /** The effects requested, in order, with the node that asked. */
  effects: Array<{ node: string } & EffectRequest>;
  vars: RunVars;
}

export interface WalkOptions {
  vars?: RunVars;
  types?: NodeTypes;
  /** The fake performer: an effect's result (default `{}`). */
  perform?: (effect: EffectRequest, node: string) => unknown;
  /** Called after each step with the node and its outcome (for limits); a returned string stops the walk with that error. */
  afterStep?: (node: string, outcome: StepOutcome, vars: RunVars) => string | null;
  /** Most steps before the walk gives up (a guard for the test itself, default 10 000). */
  maxSteps?: number;
}

/** Runs `flow` to completion, as the runtime's stepping loop does; throws what a step throws. */
export function walk(flow: VisualFlow | CompiledFlow, options: WalkOptions = {}): Walk {
  const compiled = 'entry' in flow ? flow : compileFlow(flow);
  const vars: RunVars = options.vars ?? {};
  const types = options.types ?? nodeTypes();
  const visited: string[] = [];
  const effects: Walk['effects'] = [];
  let current: string | null = compiled.entry;
  for (let n = 0; n < (options.maxSteps ?? 10_000); n++) {
    visited.push(current!);
    const outcome = step(compiled, vars, current!, 'run-1', types);
    const over = options.afterStep?.(current!, outcome, vars);
    if (over) throw new Error(over);
    if (outcome.kind === 'complete') return { output: outcome.output, visited, effects, vars };
    if (outcome.kind === 'effect') {
      effects.push({ node: outcome.node, ...outcome.effect });
      temp(vars).effects[outcome.node] = options.perform ? options.perform(outcome.effect, outcome.node) : {};
      continue;
    }
    const control = temp(vars).control;
    current = outcome.node ?? control.at(-1)?.node ?? null;
    if (current === null) return { output: terminalOutput(outcome.output), visited, effects, vars };
  }
  throw new Error(`the flow did not end within ${options.maxSteps ?? 10_000} steps; last nodes: ${visited.slice(-10).join(', ')}`);
}
