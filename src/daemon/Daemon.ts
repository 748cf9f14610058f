/**
 * Composes the daemon: configuration, storage, the Hermes client, the services, the MCP edge and the
 * HTTP listener. Layer order is shutdown order in reverse: the listener and sessions go first, then
 * run followers, then storage.
 */
import { TracingOff } from "./tracing.ts"
import { NodeFileSystem, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { createServer } from "node:http"
import { AppConfig, AppConfigLive } from "../config/AppConfig.ts"
import type { ResolvedConfig } from "../config/load.ts"
import { serveEdge } from "../edge/http/app.ts"
import { answerClientErrorsWithJson } from "../edge/http/clientError.ts"
import { InboxWebLive } from "../edge/inbox/InboxWeb.ts"
import { makeCatalog } from "../edge/mcp/catalog/clientCatalog.ts"
import { McpSessions, McpSessionsLive } from "../edge/mcp/McpSessions.ts"
import type { HermesClient } from "../hermes/client/HermesClient.ts"
import { HermesClientLive } from "../hermes/client/HermesClientLive.ts"
import type { SimServeError } from "../hermes/sim/server.ts"
import { SimulatorInfo, SimulatorInfoNone } from "../hermes/embedded.ts"
import { memoryTools } from "../edge/mcp/memory-tools/index.ts"
import type { ToolDef } from "../edge/mcp/ToolDef.ts"
import { agentTools } from "../edge/mcp/agent-tools/index.ts"
import { TeachServices } from "./teachServices.ts"
import { RunsLive } from "../services/runs/RunsLive.ts"
import { RunFollowersLocal } from "../services/runs/RunFollowers.ts"
import { RunFollowersCluster } from "../services/runs/clusterFollowers.ts"
import { clusterAddress } from "../config/cluster.ts"
import { ClusterRunnerFromConfig } from "./clusterRunner.ts"
import { ClusterMessageRetention } from "../services/runs/pg/clusterMessageRetention.ts"
import { LedgerLive } from "../services/runs/LedgerSql.ts"
import { OperatorStopsLive } from "../services/console/OperatorStops.ts"
import { StopRequestsLive } from "../services/console/stopRequests.ts"
import { McpSessionStoreLive } from "../services/mcp-sessions/McpSessionStore.ts"
import { OperatorSessionsLive } from "../services/inbox/OperatorSessions.ts"
import { SignInFailuresLive } from "../services/inbox/SignInFailures.ts"
import { InboxSessionsRetention } from "../services/inbox/sessionRetention.ts"
import { DEFAULT_SIGN_IN_LIMIT } from "../edge/inbox/signInLimit.ts"
import { StopRequestsRetention } from "../services/console/stopRetention.ts"
import { PushConfigsLive } from "../services/a2aPush/PushConfigs.ts"
import { ClientQuotasFor } from "../services/quotas/ClientQuotas.ts"
import { PushRetention } from "../services/a2aPush/pushRetention.ts"
import { PushWorkerLive } from "../services/a2aPush/PushWorker.ts"
import { type WebhookResolver, WebhookResolverLive } from "../services/a2aPush/WebhookResolver.ts"
import { renderPush } from "../edge/a2a/pushPayload.ts"
import { ClientsLive } from "../services/auth/Clients.ts"
import { ReplicasFor } from "../services/replicas/ReplicasFor.ts"
import { DbForStores } from "../storage/Db.ts"
import { ChangeFeedLive } from "../storage/ChangeFeedLive.ts"
import { AgentsLive } from "../services/agents/Agents.ts"
import { AuthLive } from "../services/auth/Auth.ts"
import { CapabilitiesLive } from "../services/capabilities/Capabilities.ts"
import { Lifecycle, LifecycleStarting } from "../common/Lifecycle.ts"
import type { Redactor } from "../common/Redactor.ts"
import { RedactorForConfig } from "./heldSecrets.ts"
import { OAuthFor, type OAuthOptions } from "../services/oauth/OAuth.ts"
import { ConsentsLive } from "../services/oauth/Consents.ts"

export interface DaemonOptions {
  /** Replaces the Hermes side (tests): provides HermesClient, may require AppConfig and Redactor. */
  readonly hermes?: Layer.Layer<HermesClient, never, AppConfig | Redactor>
  /** Tools served beside the documented ones on /mcp/agents/mcp (benchmarks: a no-op baseline tool). */
  readonly extraAgentTools?: ReadonlyArray<ToolDef>
  /** Replaces the webhooks' DNS (tests: a host that resolves to a private address, or changes). */
  readonly webhookResolver?: Layer.Layer<WebhookResolver>
  /** OAuth's test hooks (a trusted certificate for a local Client ID Metadata Document server). */
  readonly oauth?: OAuthOptions
}

/** Everything but the HTTP listener: what the tools need. */
export const servicesLayer = (config: ResolvedConfig, options: DaemonOptions = {}) => {
  // The Redactor with every secret the config holds (storage.url's password, the admin key, …).
  const base = Layer.mergeAll(AppConfigLive(config), RedactorForConfig(config), LifecycleStarting, NodeFileSystem.layer, ClientQuotasFor(config.limits))
  // The database and the one change feed over it that Auth, the inbox, waits and stops share.
  const storage = ChangeFeedLive.pipe(Layer.provideMerge(DbForStores(config)))
  const hermes: Layer.Layer<HermesClient | SimulatorInfo, SimServeError, AppConfig | Redactor> =
    options.hermes === undefined ? HermesClientLive : Layer.merge(options.hermes, SimulatorInfoNone)
  // Who follows the runs: this daemon alone, or (PostgreSQL with a cluster address) the replicas'
  // cluster, whose runner is released after the run service (its followers end first).
  const followers = Option.match(clusterAddress(config), {
    onNone: () => RunFollowersLocal,
    // With the runner (its storage made the cluster's tables): the sweep of answered follows.
    onSome: (address) =>
      Layer.merge(RunFollowersCluster, ClusterMessageRetention).pipe(Layer.provide(ClusterRunnerFromConfig(address, config.cluster, config.storage.pool_max)))
  })
  // Runs needs the inbox (approvals); the teach side needs Hermes (approval answers).
  // OAuth (only with `oauth.issuer`): below Auth, which asks it about tokens that are no key.
  const oauth = OAuthFor(config.oauth, options.webhookResolver ?? WebhookResolverLive, options.oauth)
  const services = Layer.mergeAll(AgentsLive, CapabilitiesLive, AuthLive.pipe(Layer.provideMerge(oauth)), RunsLive.pipe(Layer.provide(followers))).pipe(
    Layer.provideMerge(TeachServices),
    Layer.provideMerge(hermes)
  )
  return services.pipe(Layer.provideMerge(storage), Layer.provideMerge(base))
}

/** Connections still open this long after shutdown starts (SSE streams, reconnecting clients) are cut. */
const SHUTDOWN_GRACE_MS = 500

const listener = (config: ResolvedConfig) => {
  // Node's default keep-alive timeout stays: a shorter one races clients that reuse an idle socket
  // just as the server closes it ("fetch failed"). Shutdown closes idle sockets itself (below).
  // Bytes node's parser refuses get the same JSON error body as every other refusal.
  const server = answerClientErrorsWithJson(createServer())
  // Registered after the server is listening, so it runs before the server's own close, which waits
  // for every connection: long-lived MCP streams get a short grace period, then are closed.
  const cutOnShutdown = Layer.scopedDiscard(
    Effect.addFinalizer(() =>
      Effect.sync(() => {
        server.closeIdleConnections()
        setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref()
      })
    )
  )
  return cutOnShutdown.pipe(Layer.provideMerge(NodeHttpServer.layer(() => server, { host: config.bridge.host, port: config.bridge.port })))
}

/** The whole daemon; the HTTP server is up when this layer is built. */
/** What tool handlers may use: every service of `servicesLayer`. */
export type ToolEnv = Layer.Layer.Success<ReturnType<typeof servicesLayer>>

export const daemonLayer = (config: ResolvedConfig, options: DaemonOptions = {}) => {
  const catalog = makeCatalog(config.clients, memoryTools, [...agentTools, ...(options.extraAgentTools ?? [])])
  // Built last, released first: `ready` only once everything is up, `draining` before anything closes.
  const markReady = Layer.scopedDiscard(
    Effect.gen(function* () {
      const lifecycle = yield* Lifecycle
      const mcp = yield* McpSessions
      yield* lifecycle.set("ready")
      // Draining first (new run calls answer bridge.unavailable), then every open MCP call answers
      // bridge.unavailable too, before the listener and the connections close.
      yield* Effect.addFinalizer(() => lifecycle.set("draining").pipe(Effect.zipRight(mcp.drain)))
    })
  )
  const serving = serveEdge.pipe(
    Layer.provideMerge(McpSessionsLive<ToolEnv>(catalog)),
    // The inbox page's sessions and admin-key check (needs Auth from the services).
    Layer.provideMerge(InboxWebLive()),
    // OAuth's connection requests, waiting for the operator (only with `oauth.issuer`).
    Layer.provideMerge(config.oauth === undefined ? Layer.empty : ConsentsLive(config.oauth.consent_timeout_s)),
    Layer.provideMerge(listener(config)),
    // The operator's console: stops asked from the page or the CLI (src/services/console).
    Layer.provideMerge(OperatorStopsLive),
    // Stop requests go when the ledger no longer holds their run.
    Layer.provideMerge(StopRequestsRetention),
    // A2A push notifications: the worker (state changes → outbox → webhooks) and its sweep.
    Layer.provideMerge(Layer.merge(PushWorkerLive(renderPush), PushRetention)),
    Layer.provideMerge(Layer.merge(PushConfigsLive, options.webhookResolver ?? WebhookResolverLive)),
    // What the console and /metrics read, each from its table's owner (the replicas: the cluster's records).
    Layer.provideMerge(Layer.mergeAll(LedgerLive, StopRequestsLive, ClientsLive, ReplicasFor(config, true))),
    // The 2025-era MCP sessions as rows, so that every replica on the database serves them.
    Layer.provideMerge(McpSessionStoreLive),
    // The inbox's operator sessions and sign-in failures as rows (every replica honours them), and their sweep.
    Layer.provideMerge(
      InboxSessionsRetention(DEFAULT_SIGN_IN_LIMIT.window).pipe(Layer.provideMerge(Layer.merge(OperatorSessionsLive, SignInFailuresLive)))
    ),
    Layer.provideMerge(servicesLayer(config, options))
  )
  // Set before any service is built, so every fiber of the daemon inherits it (tracing.ts).
  return markReady.pipe(Layer.provideMerge(serving), Layer.provide(TracingOff))
}
