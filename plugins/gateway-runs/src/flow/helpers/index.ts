/**
 * The pure helper nodes gateway-runs provides (reference formats §2.6 "Pure helpers", runtime-nodes
 * §3), one concept per file; registered like any plugin's node types.
 */
import { pureNode, type PureNodeType } from '../node-types.js';
import { DEFAULT_RUN_LIMITS } from '../../runtime/run-limits.js';
import { traceReportHelpers } from './agent-trace-report.js';
import { arrayHelpers } from './arrays.js';
import { contextHelpers } from './context.js';
import { formatHelpers } from './format.js';
import { toolResultHelpers } from './format-tool-results.js';
import { jsonHelpers } from './parse-json.js';
import { logicHelpers } from './logic.js';
import { metaHelpers } from './make-meta.js';
import { mathHelpers } from './math.js';
import { objectHelpers } from './objects.js';
import { templateHelpers } from './string-template.js';
import { stringifyHelpers } from './stringify-json.js';
import { systemHelpers } from './system.js';
import { textHelpers } from './text.js';
import { variableHelpers } from './variables.js';

/** The pure helpers as node types, registered by gateway-runs like any plugin's; `limits` bound what a helper may build. */
export function builtinNodeTypes(limits: { maxVarsBytes: number } = DEFAULT_RUN_LIMITS): Record<string, PureNodeType> {
  const helpers = {
    ...textHelpers, ...logicHelpers, ...mathHelpers, ...arrayHelpers, ...objectHelpers, ...jsonHelpers, ...stringifyHelpers, ...systemHelpers,
    ...templateHelpers, ...formatHelpers(limits.maxVarsBytes), ...metaHelpers, ...variableHelpers, ...contextHelpers, ...traceReportHelpers, ...toolResultHelpers,
  };
  return Object.fromEntries(Object.entries(helpers).map(([type, evaluate]) => [type, pureNode(evaluate)]));
}

/** Literal nodes: output pin `value` is the authored value. */
export function isLiteral(type: string): boolean {
  return type.startsWith('literal_') || type === 'json_schema' || type === 'tools_allowlist';
}
