/**
 * The daemon's metrics, served by `GET /metrics` (edge/http/metrics.ts) in the Prometheus text
 * format through `prom-client`, the Node ecosystem's standard client (exposition format, registry,
 * and Node's own gauges such as event-loop lag, which Effect ships no exporter for).
 *
 * Instrumented code calls one method here, one line at each site; nothing else there knows about
 * Prometheus. `Metrics` is a `Context.Reference`: it has a default (one registry for the process),
 * so sites need no new requirement, and a test can provide a fresh instance to count from zero.
 * Gauges that are facts of the database (live runs, pending inbox rows, ledger size) are read when
 * scraped, by the endpoint, and set through `observeStore`.
 *
 * Label values are bounded sets: client names, tool names, profile names, run statuses, error codes.
 */
import { Cause, Clock, Context, Effect, Exit, Stream } from "effect"
import * as prom from "prom-client"
import type { RunFace } from "../domain/runs/face.ts"

export interface StoreFacts {
  readonly liveRuns: ReadonlyArray<{ readonly client: string; readonly face: RunFace; readonly n: number }>
  readonly inboxPending: number
  readonly ledgerRuns: number
  readonly ledgerEvents: number
  readonly databaseBytes: number
  /** Runs waiting in the queue for Hermes's capacity, by profile (absent: not read). */
  readonly queued?: ReadonlyArray<{ readonly profile: string; readonly n: number }>
}

export interface MetricsShape {
  readonly registry: prom.Registry
  readonly runStarted: (client: string, face: RunFace) => void
  readonly runFinished: (client: string, status: string, face: RunFace) => void
  /** A queued run got its Hermes slot after waiting this long. */
  readonly runQueuedFor: (profile: string, seconds: number) => void
  readonly waitOpened: () => void
  readonly waitClosed: () => void
  /** One MCP `tools/call`; `code` is the `bridge.*` code of a failed call, "ok" otherwise. */
  readonly mcpRequest: (tool: string, code: string) => void
  /** One HTTP request to Hermes; `error` is the failure's tag, null when it answered. */
  readonly hermesRequest: (profile: string, seconds: number, error: string | null) => void
  /** A follower's stream dropped and was opened again. */
  readonly hermesReconnect: (profile: string) => void
  /** A follower fell back to polling the run's status (no stream for a second subscriber). */
  readonly pollingFallback: (profile: string) => void
  /** A text or JSON tree on its way out had something masked. */
  readonly redactionApplied: () => void
  readonly observeStore: (facts: StoreFacts) => void
  /** Sets the `replica` label every metric carries (`bridge.replica_id`); the same value again is a no-op. */
  readonly labelReplica: (replica: string) => void
  /** The text exposition of every metric. */
  readonly render: () => Promise<string>
  readonly contentType: string
}

/**
 * How often Node's event-loop delay histogram (the `nodejs_eventloop_lag_*` gauges) takes a sample:
 * a timer of its own that wakes the process each time. prom-client's default, 10 ms, cost an idle
 * daemon about 5 ms of CPU per second (issue 41); one sample a second costs nothing measurable and
 * still catches a loop held for a second or more. (`nodejs_eventloop_lag_seconds` itself is measured
 * when scraped.)
 */
export const EVENT_LOOP_SAMPLE_MS = 1000

export const makeMetrics = (): MetricsShape => {
  const registry = new prom.Registry()
  prom.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  const registers = [registry]

  const runsStarted = new prom.Counter({ name: "agent_bridge_runs_started_total", help: "Runs started, by client and face (mcp, a2a)", labelNames: ["client", "face"], registers })
  const runsFinished = new prom.Counter({
    name: "agent_bridge_runs_finished_total",
    help: "Runs that reached a terminal status, by client, status and face (mcp, a2a)",
    labelNames: ["client", "status", "face"],
    registers
  })
  const queuedRuns = new prom.Gauge({ name: "agent_bridge_runs_queued", help: "Runs waiting in the queue for Hermes's capacity, by profile", labelNames: ["profile"], registers })
  const queuedSeconds = new prom.Histogram({
    name: "agent_bridge_run_queued_seconds",
    help: "How long queued runs waited for a Hermes slot, by profile",
    labelNames: ["profile"],
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800],
    registers
  })
  const liveRuns = new prom.Gauge({ name: "agent_bridge_runs_live", help: "Runs that have not ended, by client and face (mcp, a2a)", labelNames: ["client", "face"], registers })
  const waitsOpen = new prom.Gauge({ name: "agent_bridge_waits_open", help: "agent_run_wait calls, start waits and run watches (A2A streams, Tasks listens) now open", registers })
  const mcpRequests = new prom.Counter({
    name: "agent_bridge_mcp_requests_total",
    help: "MCP tool calls, by tool and outcome (\"ok\" or the bridge.* error code)",
    labelNames: ["tool", "code"],
    registers
  })
  const hermesSeconds = new prom.Histogram({
    name: "agent_bridge_hermes_request_seconds",
    help: "Latency of HTTP requests to Hermes, by profile",
    labelNames: ["profile"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers
  })
  const hermesErrors = new prom.Counter({
    name: "agent_bridge_hermes_request_errors_total",
    help: "HTTP requests to Hermes that failed, by profile and failure",
    labelNames: ["profile", "error"],
    registers
  })
  const reconnects = new prom.Counter({ name: "agent_bridge_hermes_reconnects_total", help: "Run streams opened again after a drop, by profile", labelNames: ["profile"], registers })
  const pollingFallbacks = new prom.Counter({
    name: "agent_bridge_hermes_polling_fallbacks_total",
    help: "Followers that fell back to polling a run's status, by profile",
    labelNames: ["profile"],
    registers
  })
  const redactions = new prom.Counter({ name: "agent_bridge_redactions_applied_total", help: "Outgoing texts in which the redactor masked something", registers })
  const inboxPending = new prom.Gauge({ name: "agent_bridge_inbox_pending", help: "Inbox rows waiting for a decision", registers })
  const ledgerRuns = new prom.Gauge({ name: "agent_bridge_ledger_runs", help: "Runs held in the ledger", registers })
  const ledgerEvents = new prom.Gauge({ name: "agent_bridge_ledger_events", help: "Run events held in the ledger", registers })
  const databaseBytes = new prom.Gauge({ name: "agent_bridge_database_bytes", help: "Size of the bridge's SQLite database", registers })

  return {
    registry,
    runStarted: (client, face) => runsStarted.inc({ client, face }),
    runFinished: (client, status, face) => runsFinished.inc({ client, status, face }),
    runQueuedFor: (profile, seconds) => queuedSeconds.observe({ profile }, seconds),
    waitOpened: () => waitsOpen.inc(),
    waitClosed: () => waitsOpen.dec(),
    mcpRequest: (tool, code) => mcpRequests.inc({ tool, code }),
    hermesRequest: (profile, seconds, error) => {
      hermesSeconds.observe({ profile }, seconds)
      if (error !== null) hermesErrors.inc({ profile, error })
    },
    hermesReconnect: (profile) => reconnects.inc({ profile }),
    pollingFallback: (profile) => pollingFallbacks.inc({ profile }),
    redactionApplied: () => redactions.inc(),
    observeStore: (facts) => {
      // Reset first: a client whose last live run ended must read 0, not its last value.
      liveRuns.reset()
      for (const { client, face, n } of facts.liveRuns) liveRuns.set({ client, face }, n)
      if (facts.queued !== undefined) {
        queuedRuns.reset()
        for (const { profile, n } of facts.queued) queuedRuns.set({ profile }, n)
      }
      inboxPending.set(facts.inboxPending)
      ledgerRuns.set(facts.ledgerRuns)
      ledgerEvents.set(facts.ledgerEvents)
      databaseBytes.set(facts.databaseBytes)
    },
    labelReplica: (replica) => registry.setDefaultLabels({ replica }),
    render: () => registry.metrics(),
    contentType: registry.contentType
  }
}

/** The process's metrics (one registry by default; tests may provide their own). */
export class Metrics extends Context.Reference<Metrics>()("agent-bridge/Metrics", { defaultValue: makeMetrics }) {}

/** Runs `f` on the metrics (one line at an instrumented site). */
export const withMetrics = (f: (m: MetricsShape) => void): Effect.Effect<void> => Effect.map(Metrics, (m) => f(m))

/** Times a Hermes request of `profile` and counts its failure by tag (an interrupted one is not counted). */
export const measureHermes = (profile: string) => <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const started = yield* Clock.currentTimeMillis
    return yield* Effect.onExit(request, (exit) =>
      Exit.isInterrupted(exit)
        ? Effect.void
        : Effect.map(Clock.currentTimeMillis, (now) => {
            const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : null
            const error = failure === null ? null : failure._tag === "Some" ? tagOf(failure.value) : "defect"
            metrics.hermesRequest(profile, Math.max(0, now - started) / 1000, error)
          }))
  })

const tagOf = (e: unknown): string =>
  typeof e === "object" && e !== null && "_tag" in e && typeof e._tag === "string" ? e._tag : "error"

/** Counts a wait while it is open (also when it is interrupted). */
export const countWait = <A, E, R>(wait: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Metrics, (m) => Effect.acquireUseRelease(Effect.sync(() => m.waitOpened()), () => wait, () => Effect.sync(() => m.waitClosed())))

/**
 * Counts a watch of a run (an A2A stream, a Tasks listen: `Runs.watch`) as an open wait while it is
 * read, until its reader is done or goes away: what a client holds open on the server shows alike.
 */
export const countWatch = <A, E, R>(watch: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrapScoped(Effect.flatMap(Metrics, (m) =>
    Effect.as(Effect.acquireRelease(Effect.sync(() => m.waitOpened()), () => Effect.sync(() => m.waitClosed())), watch)))
