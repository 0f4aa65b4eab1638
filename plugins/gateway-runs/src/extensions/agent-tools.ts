/**
 * `gateway-runs.agent-tools` (issue 14, skills): tools other plugins give runs beside the built-in
 * file tools (`read_skill` from `@keel/plugin-skills`). A registered tool is called like a file tool:
 * by an agent's `Action:` line or a `call_tool` node, as a durable `tool_calls` effect, under the
 * call's allow-list. A tool may also offer itself to the agents of a run without being asked for
 * (`offeredTo`): the agent child then gets it in `_runtime.allowed_tools` and the tool's note in its
 * system prompt (the skills index for `read_skill`).
 */
import { token, type Logger } from '@keel/plugin-sdk';

/** The run a tool call belongs to (its variables are read-only to the tool). */
export interface AgentToolRun {
  run_id: string;
  root_run_id: string;
  account: string;
  session_id: string | null;
  vars: Readonly<Record<string, unknown>>;
}

export interface AgentToolCall {
  arguments: Record<string, unknown>;
  run: AgentToolRun;
  /** Aborted when the step's time budget is over or the run is cancelled. */
  signal: AbortSignal;
}

/** A refusal the model should read (`success: false` with this sentence as `error`). */
export class AgentToolRefusal extends Error {}

export interface AgentTool {
  /** The name the model and the allow-lists use; never one of the file tools. */
  name: string;
  description: string;
  /** A JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** The tool's text output; throw `AgentToolRefusal` for an answer the model should read. */
  run(call: AgentToolCall): Promise<string>;
  /**
   * Whether the agents of a run with these variables get the tool without asking, and the note put
   * in their system prompt (null: not offered).
   */
  offeredTo?(vars: Readonly<Record<string, unknown>>): { note: string } | null;
}

export interface AgentTools {
  /** Registers a tool (in a plugin's setup); a name taken by a file tool or another plugin is an error at boot. */
  register(owner: string, tool: AgentTool): void;
  get(name: string): AgentTool | undefined;
  /** Every registered tool, in registration order. */
  list(): AgentTool[];
  /** Every tool name a run can call: the file tools and the registered ones. */
  names(): string[];
}

export const agentToolsToken = token<AgentTools>('gateway-runs.agent-tools');

export class AgentToolRegistry implements AgentTools {
  private readonly tools = new Map<string, { owner: string; tool: AgentTool }>();

  constructor(
    private readonly builtin: readonly string[],
    private readonly log: Logger,
  ) {}

  register(owner: string, tool: AgentTool): void {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(tool.name)) throw new Error(`The agent tool name '${tool.name}' (plugin ${owner}) must be 1-64 letters, digits, '_', '.' or '-'.`);
    if (this.builtin.includes(tool.name)) throw new Error(`The agent tool '${tool.name}' (plugin ${owner}) is a built-in file tool.`);
    const taken = this.tools.get(tool.name);
    if (taken) throw new Error(`The agent tool '${tool.name}' is registered by plugin ${taken.owner} and plugin ${owner}.`);
    this.tools.set(tool.name, { owner, tool });
  }

  get(name: string): AgentTool | undefined {
    return this.tools.get(name)?.tool;
  }

  list(): AgentTool[] {
    return [...this.tools.values()].map((t) => t.tool);
  }

  names(): string[] {
    return [...this.builtin, ...this.tools.keys()];
  }

  /** The tools offered to the agents of a run with these variables; a tool whose check throws is not offered (logged). */
  offeredTo(vars: Readonly<Record<string, unknown>>): Array<{ tool: AgentTool; note: string }> {
    const out: Array<{ tool: AgentTool; note: string }> = [];
    for (const { owner, tool } of this.tools.values()) {
      try {
        const offer = tool.offeredTo?.(vars);
        if (offer) out.push({ tool, note: offer.note });
      } catch (err) {
        this.log.warn('an agent tool failed to tell whether it is offered; not offered', { tool: tool.name, plugin: owner, error: (err as Error).message ?? String(err) });
      }
    }
    return out;
  }
}
