/**
 * The node-type registry: which plugin executes each VisualFlow node type. gateway-runs registers
 * its own pure helpers here and reserves the types its interpreter and effect executor run
 * themselves (control flow, `llm_call`, `agent`, waits, ...); other plugins add theirs through
 * `nodeTypesToken` in their setup. The registry closes when the kernel starts plugins, so the
 * set of node types is fixed while runs execute.
 */
import type { ProducedArtifact } from '../extensions/run-hooks.js';
import type { FlowNode } from './visualflow.js';

export type NodeInputs = Record<string, unknown>;

/** What a pure node sees besides its inputs: the run it is evaluated in, read only. */
export interface PureScope {
  /** The run's variables as they are now (do not change them: a pure node has no effect). */
  readonly vars: Readonly<Record<string, unknown>>;
  readonly account: string;
  readonly runId: string;
}

/** A node type that maps its inputs to an output, with no side effect; evaluated again on every read when it has no exec pins. */
export interface PureNodeType {
  kind: 'pure';
  /** The output: an object exposes its keys as output pins; a scalar is read through `result` / `output` / `value`. */
  evaluate(inputs: NodeInputs, node: FlowNode, scope: PureScope): unknown;
}

/** What an effect node's `perform` gets besides its payload. */
export interface EffectContext {
  /** The account the run belongs to (what the work may reach should depend on it). */
  account: string;
  runId: string;
  /** The root run of the run's tree: children share its workspace folder. */
  rootRunId: string;
  parentRunId: string | null;
  /** The run's workflow id, as the runs listing shows it. */
  workflowId: string;
  /** The run's session, null when it has none. */
  sessionId: string | null;
  actorId: string;
  nodeId: string;
  /** The run's variables when the effect was asked for: a copy, made on first read (changing it changes nothing). */
  readonly vars: Readonly<Record<string, unknown>>;
  /** Aborts when the run is cancelled; long work should honour it. */
  signal: AbortSignal;
  /** The real path of the run's workspace folder (the one its file tools work in), made when missing. */
  workspaceRoot(): Promise<string>;
  /**
   * Tells the `runs.hooks` listeners (artifacts) about a file this effect wrote inside the run's
   * workspace folder, once the effect's record is stored (with its node and ledger cursor); a path
   * outside the folder is not announced.
   */
  fileProduced(realPath: string, contentType?: string): void;
  /**
   * Writes `bytes` at `relPath` in the run's workspace folder as the file nodes write (workspace
   * policy, the file tools' size limit, the folder's quota) and tells the `runs.hooks` listeners
   * now, before the effect's record is stored (no ledger cursor), answering what they recorded (the
   * artifacts plugin: the artifact): for nodes whose output names the artifact they made (the media
   * nodes, reference runtime-nodes §10). A refusal (policy, size, quota) is thrown as an Error.
   */
  writeOutput(relPath: string, bytes: Buffer, contentType: string): Promise<EffectOutputFile>;
}

/** A file `writeOutput` wrote: its path in the run's workspace and the artifact made of it (null without the artifacts plugin). */
export interface EffectOutputFile {
  file_path: string;
  artifact: ProducedArtifact | null;
}

/**
 * 'external': the work reaches outside Keel (a service, a model, files), so its `started` record is
 * committed before it runs and a retry after a crash knows it began. 'local': the work only writes
 * Keel's own storage (a retry after a crash redoes it, as it would anyway): no commit before it, its
 * records and the run's state in one commit after it.
 */
export type SideEffects = 'external' | 'local';

/**
 * A node type whose work has a side effect. The runtime performs it durably like its own effects:
 * a `started` record with the payload, `perform`, then a `completed` (or `failed`) record with the
 * result; `retry.maxAttempts[<type>]` attempts (default 1); after a crash a completed result is
 * reused, never performed twice. The node needs exec pins.
 */
export interface EffectNodeType<P extends Record<string, unknown> = Record<string, unknown>, R extends Record<string, unknown> = Record<string, unknown>> {
  kind: 'effect';
  /** The effect's payload from the node's inputs; recorded in the ledger and part of its idempotency key, so plain JSON. */
  payload(inputs: NodeInputs, node: FlowNode): P;
  /** Does the work; a thrown error fails the effect (and the run, once its attempts are spent). */
  perform(payload: P, context: EffectContext): Promise<R>;
  /** The result as the node's output pins (default: the result itself). */
  outputs?(result: R): Record<string, unknown>;
  /**
   * Changes to the run's variables (e.g. `context.messages`) made from the recorded result when it
   * lands on the node; made from the result alone, so a replay after a crash makes the same change.
   */
  applyToRun?(result: R, run: { vars: Record<string, unknown>; nodeId: string }): void;
  /**
   * false: the node writes no ledger records, as the origin's plain exec nodes (`code`): `perform`
   * runs on every visit (again after a crash) and its result only lands on the pins. A
   * `NodeFailure` it throws ends the run as a failing plain node does. Default true.
   */
  recorded?: boolean;
  /**
   * 'external' (default) or 'local' (see `SideEffects`); a function decides per effect from its
   * payload (a media node whose engine is local here does local work, a remote one does not).
   */
  sideEffects?: SideEffects | ((payload: P) => SideEffects);
  /**
   * What the run ends with when this node is the last one (wrapped as any last output: an object
   * gets `success: true`, a scalar becomes `{response, success: true}`); default: its output pins.
   * The origin's `code` node ends the run with the function's raw return, not its record.
   */
  lastNodeOutput?(result: R): unknown;
}

/**
 * Thrown by an unrecorded node's `perform` when the node fails as a plain exec node does (reference
 * runtime-nodes §2 rule 5): the run completes, not fails, with `{...record, node}` as its output and
 * `_flow_error` / `_flow_error_node` set in its variables.
 */
export class NodeFailure extends Error {
  constructor(message: string, readonly record: Record<string, unknown>) {
    super(message);
    this.name = 'NodeFailure';
  }
}

export type NodeTypeDefinition = PureNodeType | EffectNodeType;

/** A pure node type from its mapping function. */
export function pureNode(evaluate: PureNodeType['evaluate']): PureNodeType {
  return { kind: 'pure', evaluate };
}

/** An effect node type, its payload and result types checked here and erased in the registry. */
export function effectNode<P extends Record<string, unknown>, R extends Record<string, unknown>>(definition: Omit<EffectNodeType<P, R>, 'kind'>): EffectNodeType {
  return { kind: 'effect', ...definition } as unknown as EffectNodeType;
}

/** Whether one effect of `type` with `payload` does local or external work. */
export function sideEffectsOf(type: EffectNodeType | undefined, payload: Record<string, unknown>): SideEffects {
  const declared = type?.sideEffects;
  return (typeof declared === 'function' ? declared(payload) : declared) ?? 'external';
}

/** What other plugins see of the registry (the value of `nodeTypesToken`). */
export interface NodeTypeRegistry {
  /**
   * Adds node types owned by the plugin `owner` (its id, used in error messages). A type that is
   * already registered is refused naming both plugins; so is registering after the kernel started.
   */
  register(owner: string, types: Record<string, NodeTypeDefinition>): void;
  /** The plugin that executes `type`, if any is loaded. */
  ownerOf(type: string): string | undefined;
}

/** Node types of the origin system whose Keel plugin is known: named when a flow uses one and that plugin is not loaded. */
const KNOWN_ORIGINS: Array<[RegExp, string]> = [
  [/^(generate_image|edit_image)$/, 'vision'],
  [/^(generate_voice|transcribe_audio|generate_music)$/, 'voice'],
  [/^(memory_.+|memact_compose)$/, 'memory'],
  [/^code$/, 'code'],
];

/** The Keel plugin known to provide `type`, when it is one of the origin system's capability nodes. */
export function knownProviderOf(type: string): string | undefined {
  return KNOWN_ORIGINS.find(([pattern]) => pattern.test(type))?.[1];
}

export class NodeTypes implements NodeTypeRegistry {
  /** `null`: a type the interpreter or effect executor runs itself. */
  private readonly types = new Map<string, { owner: string; definition: NodeTypeDefinition | null }>();
  private closedReason: string | null = null;

  register(owner: string, types: Record<string, NodeTypeDefinition>): void {
    this.add(owner, Object.entries(types));
  }

  /** Types gateway-runs executes itself: no plugin may register them. */
  reserve(owner: string, types: Iterable<string>): void {
    this.add(owner, [...types].map((t) => [t, null]));
  }

  ownerOf(type: string): string | undefined {
    return this.types.get(type)?.owner;
  }

  has(type: string): boolean {
    return this.types.has(type);
  }

  /** The registered pure node type, if `type` is one. */
  pure(type: string): PureNodeType | undefined {
    const definition = this.types.get(type)?.definition;
    return definition?.kind === 'pure' ? definition : undefined;
  }

  /** The registered effect node type, if `type` is one. */
  effect(type: string): EffectNodeType | undefined {
    const definition = this.types.get(type)?.definition;
    return definition?.kind === 'effect' ? definition : undefined;
  }

  /** No registration from now on (called when the kernel starts plugins). */
  close(reason: string): void {
    this.closedReason = reason;
  }

  private add(owner: string, entries: Array<[string, NodeTypeDefinition | null]>): void {
    if (this.closedReason) throw new Error(`plugin '${owner}' registered node types after ${this.closedReason}; register them in setup.`);
    const clashes = entries.flatMap(([type]) => {
      const other = this.types.get(type);
      return other ? [`node type '${type}' is registered by both '${other.owner}' and '${owner}'`] : [];
    });
    if (clashes.length) throw new Error(`${clashes.join('; ')}.`);
    if (entries.some(([type]) => !type)) throw new Error(`plugin '${owner}' registered a node type with an empty name.`);
    for (const [type, definition] of entries) this.types.set(type, { owner, definition });
  }
}

/** Why a flow cannot run here: nodes whose type no loaded plugin provides (`node` is the first; `others` the rest, all named). */
export class UnsupportedNodeError extends Error {
  constructor(readonly node: string, readonly nodeType: string, readonly others: ReadonlyArray<{ node: string; nodeType: string }> = []) {
    super(others.length === 0 ? `${unsupportedReason(node, nodeType)}.` : severalUnsupported([{ node, nodeType }, ...others]));
  }
}

function unsupportedReason(node: string, nodeType: string): string {
  const provider = knownProviderOf(nodeType);
  return provider
    ? `node '${node}' has type '${nodeType}', which the '${provider}' plugin provides; that plugin is not loaded (add it to the config's plugins)`
    : `node '${node}' has type '${nodeType}', which no loaded plugin provides`;
}

/** Every unsupported node in one sentence, so one attempt shows all there is to fix. */
function severalUnsupported(nodes: ReadonlyArray<{ node: string; nodeType: string }>): string {
  const parts = nodes.map(({ node, nodeType }) => {
    const provider = knownProviderOf(nodeType);
    return `node '${node}' has type '${nodeType}' (${provider ? `the '${provider}' plugin provides it; add that plugin to the config's plugins` : 'no loaded plugin provides it'})`;
  });
  return `${nodes.length} nodes of this flow have types no loaded plugin provides: ${parts.join('; ')}.`;
}
