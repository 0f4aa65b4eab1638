/**
 * `@keel/plugin-gateway-runs`: durable workflow runs (seed 000 §2.1–2.2, §3, §4.2–4.4): `.flow`
 * bundles, the VisualFlow runtime, runs, commands and the in-process runner. Its ledger lives in
 * `@keel/plugin-ledger`; its LLM calls go through `@keel/plugin-inference`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { core, definePlugin, defineSchemaFor, optional, token } from '@keel/plugin-sdk';
import { ledgerToken, liveBusToken } from '@keel/plugin-ledger';
import { discoveryCapabilitiesToken, inferenceToken } from '@keel/plugin-inference';
import { workspacesToken } from '@keel/plugin-workspaces';
import { BundleRegistry } from './bundles/bundle-registry.js';
import { DEFAULT_BUNDLE_LIMITS, type BundleLimits } from './bundles/bounded-unzip.js';
import { UNZIP_WORKER_FILE, UploadReader } from './bundles/upload-reader.js';
import { CatalogFiles } from './catalog/catalog-files.js';
import { CatalogStore } from './catalog/catalog-store.js';
import { fileNodeTypes, PDF_WORKER_FILE } from './flow/file-nodes.js';
import type { PdfTask } from './flow/pdf-worker.js';
import { builtinNodeTypes } from './flow/helpers/index.js';
import { providerModelsNode } from './flow/provider-models-node.js';
import { modelResidencyNode } from './flow/model-residency-node.js';
import { ModelListing } from './models/model-listing.js';
import { INTERPRETER_TYPES } from './flow/interpreter.js';
import { NodeTypes, type NodeTypeRegistry } from './flow/node-types.js';
import { CommandApplier } from './runner/apply-command.js';
import { CommandStore } from './runner/command-store.js';
import { RunQueue } from './runner/run-queue.js';
import { Runner } from './runner/runner.js';
import { RUNNER_PROCESS, wireRunner, type RunnerPlace } from './runner/runner-wiring.js';
import { RunHooksRegistry, runHooksToken } from './extensions/run-hooks.js';
import { runLauncherToken, type RunLauncher } from './extensions/run-launcher.js';
import { RunLauncherService } from './extensions/launcher-service.js';
import { StartPipeline } from './routes/start-pipeline.js';
import { DEFAULT_START_WAIT, MAX_START_WAIT_S, RunSettledWaits, type StartWaitSettings } from './routes/run-settled-wait.js';
import { AgentToolRegistry, agentToolsToken, type AgentTools } from './extensions/agent-tools.js';
import { FILE_TOOLS } from './workspace/file-tools.js';
import { RunsDirectoryService, runsDirectoryToken } from './extensions/runs-directory.js';
import { RuntimeConfigStore, runtimeConfigToken } from './settings/runtime-config.js';
import { DEFAULT_LLM_OUTPUT, type LlmOutputSettings } from './runtime/llm-output.js';
import { DEFAULT_RETRY, RetryPolicy, type RetryConfig } from './runtime/retry-policy.js';
import { ActiveRunCap } from './routes/active-run-cap.js';
import { DEFAULT_RUN_LIMITS, RunLimits, type RunLimitsConfig } from './runtime/run-limits.js';
import { RunStore } from './runtime/run-store.js';
import { Runtime } from './runtime/runtime.js';
import { BUILTIN_DEFAULT_WORKFLOWS, type WorkflowSources } from './routes/agent-defaults.js';
import { catalogAdminRoutes } from './routes/catalog-admin-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { hostRoutes } from './routes/host-routes.js';
import { COMMAND_TYPES, runsRoutes } from './routes/runs-routes.js';
import { runListingRoutes } from './routes/run-listing.js';
import { sessionRoutes } from './routes/session-routes.js';
import { SessionArchive } from './sessions/session-archive.js';
import { SessionKinds } from './sessions/session-kinds.js';
import { runtimeConfigRoutes } from './routes/runtime-config-routes.js';
import { visualflowPublishRoutes } from './routes/visualflow-publish-routes.js';
import { runtimeAdminRoutes } from './routes/runtime-admin-routes.js';
import { RunReservations } from './settings/run-reservations.js';
import { AgentSettings } from './settings/agent-settings.js';
import { runWorkspaceRoutes } from './routes/run-workspace-routes.js';
import { DEFAULT_RUN_WORKSPACE_SETTINGS, type RunWorkspaceSettings } from './run-workspace/settings.js';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from './workspace/tool-limits.js';
import { FolderUsage } from './workspace/folder-quota.js';
import { DEFAULT_SESSION_HISTORY, SessionHistory, type SessionHistorySettings } from './sessions/session-history.js';
import { TurnCache } from './sessions/turn-cache.js';
import { LOOPBACK_URL_PATTERN, DOCS_APPS } from './docs/app-corpus.js';
import { DEFAULT_DOCS_SETTINGS, type DocsSettings } from './docs/docs-settings.js';
import { publishDocsQa } from './docs/docs-qa-publication.js';
import { docsRoutes } from './docs/docs-routes.js';
import { checkoutCorpusFile, DOCS_CORPUS_ENV } from './docs/gateway-corpus.js';

export { effectNode, pureNode, NodeFailure } from './flow/node-types.js';
/** The origin's Python texts and flag coercion, for plugins whose node types must write what the origin writes. */
export { PythonError, pythonJsonDumps, pythonRepr, pythonStr } from './flow/python-text.js';
export { coerceBool, pythonTruthy } from './flow/coerce.js';
export type { EffectContext, EffectNodeType, EffectOutputFile, SideEffects, NodeInputs, NodeTypeDefinition, NodeTypeRegistry, PureNodeType, PureScope } from './flow/node-types.js';
export type { FlowNode } from './flow/visualflow.js';
export { runsDirectoryToken } from './extensions/runs-directory.js';
export type { RunFacts, RunsDirectory } from './extensions/runs-directory.js';
export { runHooksToken } from './extensions/run-hooks.js';
export type { CommandRequest, CommandTarget, EmittedEvent, EventEmittedListener, FileProducedListener, ProducedArtifact, ProducedFile, RunHooks, StartCheck, StartCheckInput, StartPreparation, StartPreparer } from './extensions/run-hooks.js';
export { runLauncherToken } from './extensions/run-launcher.js';
export type { LaunchedWorkflow, LaunchRequest, LaunchResult, LaunchTags, LaunchTarget, LegacySchedule, RunEndedListener, RunLauncher, RunOutcome } from './extensions/run-launcher.js';
export { runtimeConfigToken } from './settings/runtime-config.js';
/** The history window and its token estimate (reference §5.3–5.4), for plugins that seed a transcript the same way (automations' discussions). */
export { estimateMessageTokens, TOKEN_ESTIMATOR } from './sessions/token-estimate.js';
export type { ReplayMessage } from './sessions/token-estimate.js';
export { windowTurns, truncationLine, WINDOW_POLICY } from './sessions/history-window.js';
export type { ReplayTurn, WindowReport } from './sessions/history-window.js';
export { DOCS_QA_BUNDLE_ID, DOCS_QA_MIGRATION } from './sessions/session-kinds.js';
export type { IsDocsSession, SessionPurpose } from './sessions/session-kinds.js';
export { agentToolsToken, AgentToolRefusal } from './extensions/agent-tools.js';
export type { AgentTool, AgentToolCall, AgentToolRun, AgentTools } from './extensions/agent-tools.js';
export type { RuntimeConfig, RuntimeConfigRow, RuntimeSettingDefinition, SavedSetting } from './settings/runtime-config.js';

/** The node-type registry: a plugin that depends on it registers the VisualFlow node types it executes, in its setup. */
export const nodeTypesToken = token<NodeTypeRegistry>('gateway-runs.node-types');

export const SHIPPED_BUNDLES_DIR = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../bundles');
/** The plugin package's root folder (`bundles/`, `docs/llms.txt`). */
const PLUGIN_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

interface GatewayRunsConfig {
  /** Execute runs in the server process; false (`keel serve --no-runner`) leaves them to a `keel runner` on the same data dir. */
  runner: boolean;
  defaultBundleId: string | null;
  /** The built-in `agents.streaming_default` (token deltas for runs whose start omits `_runtime.stream`); a saved runtime setting wins. */
  streamingDefault: boolean;
  /** The built-in `agents.default_workflow.<interface>` values; a saved runtime setting wins. */
  defaultWorkflows: Record<string, string>;
  /** Effect retries (reference §3.5): attempts per effect type and the backoff between them. */
  retry: RetryConfig;
  /** The file tools' budgets (the workspace policy itself is the workspaces plugin's). */
  workspace: ToolLimits;
  /** Describe the agent's allowed file tools and the `Action:` format in its system prompt. */
  agentToolPrompt: boolean;
  /** Output-token bounds of LLM calls (reference runtime-nodes §5.1). */
  llm: LlmOutputSettings;
  /** How often the `provider_models` node's listing of provider catalogs is refreshed. */
  providerModels: { refreshMs: number };
  /** What a `.flow` bundle may inflate to, checked on upload and whenever a stored bundle is read. */
  bundleLimits: BundleLimits;
  /** Per-run limits: steps, variable size, processing time, active runs per account (the ledger plugin limits record and ledger bytes). */
  limits: RunLimitsConfig;
  /** The run workspace routes' limits and the folder opener (`/runs/{id}/workspace*`). */
  runWorkspace: RunWorkspaceSettings;
  /** History replay (`use_session_history`): the window's token budget. */
  sessionHistory: SessionHistorySettings;
  /** Docs questions: the corpora of `GET /docs/corpus` and the tenants docs-qa is published into. */
  docs: DocsSettings;
  /** `wait` on `POST /runs/start`: the longest wait and how many starts one process holds waiting. */
  startWait: StartWaitSettings;
}

const configSchema = defineSchemaFor<GatewayRunsConfig>()({
  type: 'object',
  additionalProperties: false,
  properties: {
    runner: { type: 'boolean', default: true },
    defaultBundleId: { type: ['string', 'null'], default: null },
    streamingDefault: { type: 'boolean', default: false },
    defaultWorkflows: {
      type: 'object',
      additionalProperties: { type: 'string', pattern: '^(?:(?:private|catalog):)?[A-Za-z0-9_-]+(?:@[A-Za-z0-9_.-]+)?:.+$' },
      default: BUILTIN_DEFAULT_WORKFLOWS,
    },
    retry: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        backoffBaseMs: { type: 'integer', minimum: 0, default: DEFAULT_RETRY.backoffBaseMs },
        backoffMaxMs: { type: 'integer', minimum: 0, default: DEFAULT_RETRY.backoffMaxMs },
        maxAttempts: { type: 'object', additionalProperties: { type: 'integer', minimum: 1, maximum: 20 }, default: DEFAULT_RETRY.maxAttempts },
      },
    },
    agentToolPrompt: { type: 'boolean', default: false },
    providerModels: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: { refreshMs: { type: 'integer', minimum: 1000, default: 60_000 } },
    },
    llm: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        defaultMaxOutputTokens: { type: 'integer', minimum: 16, default: DEFAULT_LLM_OUTPUT.defaultMaxOutputTokens },
        maxOutputTokensCap: { type: 'integer', minimum: 256, default: DEFAULT_LLM_OUTPUT.maxOutputTokensCap },
      },
    },
    workspace: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxReadBytes: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.maxReadBytes },
        maxWriteBytes: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.maxWriteBytes },
        stepTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.stepTimeoutMs },
        maxResultBytes: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.maxResultBytes },
        maxFolderBytes: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.maxFolderBytes },
        maxFolderEntries: { type: 'integer', minimum: 1, default: DEFAULT_TOOL_LIMITS.maxFolderEntries },
        maxPathDepth: { type: 'integer', minimum: 1, maximum: 256, default: DEFAULT_TOOL_LIMITS.maxPathDepth },
      },
    },
    runWorkspace: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxListEntries: { type: 'integer', minimum: 1, default: DEFAULT_RUN_WORKSPACE_SETTINGS.maxListEntries },
        maxListScan: { type: 'integer', minimum: 1, default: DEFAULT_RUN_WORKSPACE_SETTINGS.maxListScan },
        maxListDepth: { type: 'integer', minimum: 0, maximum: 256, default: DEFAULT_RUN_WORKSPACE_SETTINGS.maxListDepth },
        maxRanges: { type: 'integer', minimum: 1, maximum: 256, default: DEFAULT_RUN_WORKSPACE_SETTINGS.maxRanges },
        opener: { type: ['string', 'null'], minLength: 1, default: DEFAULT_RUN_WORKSPACE_SETTINGS.opener },
        openTimeoutMs: { type: 'integer', minimum: 1, default: DEFAULT_RUN_WORKSPACE_SETTINGS.openTimeoutMs },
      },
    },
    docs: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        apps: {
          type: 'object',
          additionalProperties: false,
          default: {},
          properties: Object.fromEntries(Object.keys(DOCS_APPS).map((id) => [id, { type: 'string', pattern: LOOPBACK_URL_PATTERN }])),
        },
        appFetchTimeoutMs: { type: 'integer', minimum: 100, maximum: 60_000, default: DEFAULT_DOCS_SETTINGS.appFetchTimeoutMs },
        maxAppCorpusBytes: { type: 'integer', minimum: 1024, default: DEFAULT_DOCS_SETTINGS.maxAppCorpusBytes },
        maxCorpusBytes: { type: 'integer', minimum: 1024, default: DEFAULT_DOCS_SETTINGS.maxCorpusBytes },
        catalogTenants: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' }, uniqueItems: true, default: DEFAULT_DOCS_SETTINGS.catalogTenants },
      },
    },
    bundleLimits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxInflatedBytes: { type: 'integer', minimum: 1024, default: DEFAULT_BUNDLE_LIMITS.maxInflatedBytes },
        maxEntries: { type: 'integer', minimum: 2, default: DEFAULT_BUNDLE_LIMITS.maxEntries },
        maxJsonDepth: { type: 'integer', minimum: 8, default: DEFAULT_BUNDLE_LIMITS.maxJsonDepth },
        maxFlowNodes: { type: 'integer', minimum: 2, default: DEFAULT_BUNDLE_LIMITS.maxFlowNodes },
        maxFlowEdges: { type: 'integer', minimum: 1, default: DEFAULT_BUNDLE_LIMITS.maxFlowEdges },
      },
    },
    startWait: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        // A timer fires at once past 2^31 - 1 ms: every wait would answer `reached: false` straight away.
        maxTimeoutS: { type: 'number', exclusiveMinimum: 0, maximum: MAX_START_WAIT_S, default: DEFAULT_START_WAIT.maxTimeoutS },
        maxWaiters: { type: 'integer', minimum: 1, default: DEFAULT_START_WAIT.maxWaiters },
      },
    },
    sessionHistory: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxTokens: { type: 'integer', minimum: 1, default: DEFAULT_SESSION_HISTORY.maxTokens },
        maxTurnsRead: { type: 'integer', minimum: 1, default: DEFAULT_SESSION_HISTORY.maxTurnsRead },
      },
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxVarsBytes: { type: 'integer', minimum: 65536, default: DEFAULT_RUN_LIMITS.maxVarsBytes },
        maxVarsDepth: { type: 'integer', minimum: 16, default: DEFAULT_RUN_LIMITS.maxVarsDepth },
        maxSteps: { type: 'integer', minimum: 100, default: DEFAULT_RUN_LIMITS.maxSteps },
        maxRunCpuMs: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxRunCpuMs },
        maxActiveRunsPerAccount: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxActiveRunsPerAccount },
        maxReservedActiveRuns: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxReservedActiveRuns },
        maxChildFailuresListed: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxChildFailuresListed },
        maxListenerRunsPerAccount: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxListenerRunsPerAccount },
        maxRunDepth: { type: 'integer', minimum: 1, maximum: 10_000, default: DEFAULT_RUN_LIMITS.maxRunDepth },
        maxRunsPerTree: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxRunsPerTree },
        maxArchiveHistoryPerAccount: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxArchiveHistoryPerAccount },
        maxListScan: { type: 'integer', minimum: 1, default: DEFAULT_RUN_LIMITS.maxListScan },
      },
    },
  },
});

export const gatewayRunsPlugin = definePlugin({
  id: 'gateway-runs',
  version: '0.1.0',
  sdk: '^1.0.0',
  description: 'Durable workflow runs: .flow bundles, the VisualFlow runtime, commands and the runner',
  configSchema,
  defaultPrefix: '/api/gateway',
  guardUnmatched: true,
  provides: { nodeTypes: nodeTypesToken, runsDirectory: runsDirectoryToken, runHooks: runHooksToken, runLauncher: runLauncherToken, runtimeConfig: runtimeConfigToken, agentTools: agentToolsToken },
  deps: { log: core.logger, storage: core.storage, paths: core.paths, auth: core.auth, host: core.host, watchdog: core.watchdog, workers: core.workers, ledger: ledgerToken, live: liveBusToken, inference: inferenceToken, workspaces: workspacesToken, capabilities: optional(discoveryCapabilitiesToken) },
  commands: {
    runner: {
      summary: 'Execute runs for a `keel serve --no-runner` on the same data dir (no listener; stops on SIGTERM/SIGINT).',
      usage: '',
      load: () => import('./cli/runner-command.js'),
    },
  },
  serveFlags: {
    runner: { type: 'boolean', config: 'runner', summary: 'Execute runs in the server process (default); --no-runner leaves them to a `keel runner` on the same data dir.' },
  },
  setup({ config, deps }) {
    // The command types `POST /commands` takes, advertised by `GET /discovery/capabilities` (a command target such as automations adds its own).
    deps.capabilities?.contribute((caps) => {
      caps.runs = { commands: { types: [...COMMAND_TYPES] } };
    });
    // `keel runner` executes runs alone; a one-shot command or a server with runner: false leaves them to it.
    const place: RunnerPlace = deps.host.process === RUNNER_PROCESS ? 'dedicated' : config.runner && deps.host.mode !== 'cli' && deps.host.mode !== 'headless' ? 'in-process' : 'elsewhere';
    // The interpreter's own types are reserved and its pure helpers registered like any plugin's node types.
    const nodeTypes = new NodeTypes();
    nodeTypes.reserve('gateway-runs', INTERPRETER_TYPES);
    nodeTypes.register('gateway-runs', builtinNodeTypes(config.limits));
    const modelListing = new ModelListing(deps.inference, config.providerModels.refreshMs, deps.log);
    nodeTypes.register('gateway-runs', { provider_models: providerModelsNode(modelListing), model_residency: modelResidencyNode(deps.inference) });
    const runs = new RunStore(deps.storage);
    const runtimeConfig = new RuntimeConfigStore(deps.storage);
    const sessionArchive = new SessionArchive(deps.storage, config.limits.maxArchiveHistoryPerAccount);
    const sessionKinds = new SessionKinds(deps.storage);
    const hooks = new RunHooksRegistry(deps.log);
    const agentTools = new AgentToolRegistry(FILE_TOOLS, deps.log);
    const commands = new CommandStore(deps.storage);
    // Uploads from any account are unzipped on a worker thread, never on the event loop.
    const uploads = new UploadReader(deps.workers.create('bundle-unzip', { filename: UNZIP_WORKER_FILE, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 }), config.bundleLimits);
    const bundles = new BundleRegistry(SHIPPED_BUNDLES_DIR, path.join(deps.paths.pluginDir, 'bundles'), (account) => path.join(deps.paths.forAccount(account), 'bundles'), uploads, deps.log);
    const catalog = new CatalogStore(deps.storage, new CatalogFiles(path.join(deps.paths.pluginDir, 'workflow_catalog', 'bundles')), uploads);
    // The config's agent settings are the built-in defaults; an admin's saved values (runtime-config) win.
    const agentSettings = new AgentSettings(runtimeConfig, config.defaultWorkflows, config.streamingDefault);
    const sources: WorkflowSources = { bundles, catalog, defaultWorkflows: agentSettings.defaultWorkflows, isAdmin: (p) => deps.auth.isAdmin(p) };
    agentSettings.define(sources);
    // Built in one order, each part handed what it uses: the runtime schedules into the queue the runner works off.
    const queue = new RunQueue();
    // Runs stay in memory only while this process's runner holds the lock (`wiring` is set before any run is made).
    // One record of the run folders' usage for the file tools and for export (artifacts), so neither gets around the quota.
    const folderUsage = new FolderUsage();
    const pdfPool = deps.workers.create('pdf-render', { filename: PDF_WORKER_FILE, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
    const renderPdf = async (content: string, title: string | null, signal: AbortSignal) => {
      const bytes = (await pdfPool.run({ content, title } satisfies PdfTask, { signal })) as Uint8Array;
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    };
    nodeTypes.register('gateway-runs', fileNodeTypes({ workspaces: deps.workspaces, limits: config.workspace, usage: folderUsage, renderPdf }));
    const runtime = new Runtime({
      cacheLive: () => wiring.active,
      runs,
      ledger: deps.ledger.store,
      hub: deps.live,
      bundles,
      catalog,
      inference: deps.inference,
      log: deps.log,
      retry: new RetryPolicy({ ...DEFAULT_RETRY, ...config.retry, maxAttempts: { ...DEFAULT_RETRY.maxAttempts, ...config.retry?.maxAttempts } }),
      workspaces: deps.workspaces,
      toolLimits: config.workspace,
      folderUsage,
      agentToolPrompt: config.agentToolPrompt,
      llmOutput: config.llm,
      limits: new RunLimits(config.limits),
      nodeTypes,
      scheduler: queue,
      fileProduced: (file) => hooks.fileProduced(file),
      // After the end's commit, not waited for: a listener never holds the run's lock or fails it.
      rootEnded: (run) => void hooks.runEnded({ ...launcher.outcomeOf(run), automation_id: run.automation_id ?? null, role: run.role ?? null, occurrence_index: run.occurrence_index ?? null }),
      agentTools,
    });
    const reservations = new RunReservations(deps.storage);
    const activeRuns = new ActiveRunCap(runs, config.limits.maxActiveRunsPerAccount, (p) => deps.auth.isAdmin(p), config.limits.maxListenerRunsPerAccount, (account) => reservations.slotsOf(account));
    const applier = new CommandApplier(runtime, runs, deps.log, (event) => hooks.eventEmitted(event));
    const runner = new Runner({ runtime, queue, applier, runs, commands, log: deps.log });
    const wiring = wireRunner(place, deps.paths.dataDir, deps.live, runner, deps.log);
    // One start pipeline: `POST /runs/start` and the `runs.launcher` token.
    const pipeline = new StartPipeline({
      runtime,
      start: { ...sources, defaultBundleId: config.defaultBundleId },
      auth: deps.auth,
      activeRuns,
      streamingDefault: () => agentSettings.streamingDefault(),
      kick: (id) => wiring.kick(id),
      hooks,
      workspaces: deps.workspaces,
      sessionKinds,
      history: new SessionHistory({ turns: new TurnCache(deps.storage, runs), log: deps.log, settings: config.sessionHistory, varsLimits: { ...DEFAULT_RUN_LIMITS, ...config.limits } }),
      log: deps.log,
    });
    const launcher = new RunLauncherService({
      pipeline,
      load: (id) => runtime.load(id),
      runs,
      commands,
      kickCommands: () => wiring.kickCommands(),
      workspaces: deps.workspaces,
      executing: wiring,
      archivedAt: (account, sessionId) => sessionArchive.markOf(account, sessionId)?.archived_at ?? null,
    });
    return {
      exports: {
        nodeTypes: nodeTypes as NodeTypeRegistry,
        runsDirectory: new RunsDirectoryService({ load: (id) => runtime.load(id), runs, isAdmin: (p) => deps.auth.isAdmin(p), workspaces: deps.workspaces, usage: folderUsage, quota: config.workspace }),
        runHooks: hooks,
        runLauncher: launcher as RunLauncher,
        runtimeConfig,
        agentTools: agentTools as AgentTools,
      },
      routes: [
        ...runsRoutes({
          runs,
          ledger: deps.ledger.store,
          runtime,
          commands,
          bundles,
          auth: deps.auth,
          activeRuns,
          start: { ...sources, defaultBundleId: config.defaultBundleId },
          runnerWarning: () => wiring.warning,
          kick: (id) => wiring.kick(id),
          kickCommands: () => wiring.kickCommands(),
          hooks,
          workspaces: deps.workspaces,
          sessionKinds,
          pipeline,
          waits: new RunSettledWaits({ live: deps.live, read: (id) => runs.get(id), settings: config.startWait }),
        }),
        ...runListingRoutes({ runs, ledger: deps.ledger.store, archive: sessionArchive, kinds: sessionKinds, workspaces: deps.workspaces, isAdmin: (p) => deps.auth.isAdmin(p), maxListScan: config.limits.maxListScan }),
        ...sessionRoutes({ runs, archive: sessionArchive, auth: deps.auth, log: deps.log }),
        ...runWorkspaceRoutes({ load: (id) => runtime.load(id), workspaces: deps.workspaces, isAdmin: (p) => deps.auth.isAdmin(p), settings: config.runWorkspace }),
        ...catalogRoutes({ catalog, sources }),
        ...catalogAdminRoutes({ catalog, sources }),
        ...runtimeConfigRoutes(runtimeConfig),
        ...visualflowPublishRoutes({ bundles }),
        ...runtimeAdminRoutes({ runs, load: (id) => runtime.load(id), bundles, reservations, activeRuns, auth: deps.auth, maxActiveRunsPerAccount: config.limits.maxActiveRunsPerAccount, maxReservedActiveRuns: config.limits.maxReservedActiveRuns }),
        ...hostRoutes({ watchdog: deps.watchdog, separateRunner: place === 'elsewhere' ? RUNNER_PROCESS : null }),
        ...docsRoutes({
          gateway: {
            env: () => process.env[DOCS_CORPUS_ENV],
            checkoutFile: checkoutCorpusFile(PLUGIN_ROOT, (file) => JSON.parse(readFileSync(file, 'utf8'))),
            packagedFile: path.join(PLUGIN_ROOT, 'docs', 'llms.txt'),
            dataDir: deps.paths.dataDir,
            maxBytes: config.docs.maxCorpusBytes,
          },
          apps: config.docs,
        }),
      ],
      health: { runner: () => (config.runner ? 'enabled' : 'disabled') },
      start: async () => {
        // Every plugin's setup has run: the set of node types is final while runs execute.
        nodeTypes.close('the kernel started');
        await runs.migrate();
        await sessionKinds.migrate(() => runs.allRoots());
        // docs-qa into the tenant catalog (publish-if-absent); a failure is logged, never a failed boot.
        await publishDocsQa({ catalog, shippedDir: SHIPPED_BUNDLES_DIR, limits: config.bundleLimits, tenants: config.docs.catalogTenants, log: deps.log });
        modelListing.start();
        return wiring.start();
      },
      stop: () => {
        modelListing.stop();
        return wiring.stop();
      },
    };
  },
});

export default gatewayRunsPlugin;
